package main

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The attacks of issue 25 through the server; wire_attacks_test.go drives them through
// Handler().

// credentialsFile writes a -credentials file of one key, 111111111111.
func credentialsFile(t *testing.T) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "credentials.json")
	require.NoError(t, os.WriteFile(file, []byte(`[{"accessKeyId": "111111111111", "secretAccessKey": "attack-secret"}]`), 0o600))
	return file
}

func TestAttackControlEndpointsNeedTheTokenInSignedMode(t *testing.T) {
	creds := credentialsFile(t)
	for _, tc := range []struct {
		name   string
		args   []string
		header string
		want   int
	}{
		{"lenient mode: the header is enough", nil, "1", http.StatusOK},
		{"signed mode without -control-token: refused", []string{"-credentials", creds}, "1", http.StatusForbidden},
		{"signed mode, no token sent", []string{"-credentials", creds, "-control-token", "s3cret-token"}, "1", http.StatusForbidden},
		{"signed mode, a wrong token", []string{"-credentials", creds, "-control-token", "s3cret-token"}, "s3cret-tokem", http.StatusForbidden},
		{"signed mode, the token", []string{"-credentials", creds, "-control-token", "s3cret-token"}, "s3cret-token", http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestServer(t, append([]string{"-clock", "virtual"}, tc.args...)...)
			for _, ep := range []struct{ method, path string }{
				{"GET", "/_sqsfake/state"}, {"POST", "/_sqsfake/reset"}, {"POST", "/_sqsfake/advance?d=1s"},
				{"GET", "/_sqsfake/pollers"}, {"GET", "/_sqsfake/idle"},
			} {
				w := serve(s, ep.method, ep.path, "127.0.0.1:9324", "X-Sqsfake-Control", tc.header)
				assert.Equal(t, tc.want, w.Code, "%s %s: %s", ep.method, ep.path, w.Body.String())
				if tc.want == http.StatusForbidden {
					assert.NotContains(t, w.Body.String(), "messages")
				}
			}
			w := serve(s, "GET", "/_sqsfake/health", "127.0.0.1:9324")
			assert.Equal(t, http.StatusOK, w.Code, "health needs nothing")
		})
	}
}
