package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// docRecipe returns the fenced block that follows the line "<!-- recipe: name …" in a doc of
// the repository, as written.
func docRecipe(t *testing.T, doc, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", doc))
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(b), "<!-- recipe: "+name+" ")
	require.True(t, ok, "%s has no recipe %s", doc, name)
	_, rest, _ = strings.Cut(rest, "\n```")
	_, rest, _ = strings.Cut(rest, "\n") // the fence's language
	block, _, ok := strings.Cut(rest, "```")
	require.True(t, ok, "the recipe %s of %s ends", name, doc)
	return block
}

// TestDocsSNSRecipes runs docs/wire.md's "SNS into a queue" recipes for the AWS CLI and boto3
// exactly as written — only the address is the test server's — against the built server:
// issue 32's trap 1, where subscribe and publish succeeded and the queue stayed empty.
func TestDocsSNSRecipes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		recipe, interpreter string
		args                []string
		skip                func() string
		want                string
	}{
		{"sns-cli", "bash", []string{"-euo", "pipefail", "-c"}, func() string {
			if _, err := exec.LookPath("aws"); err != nil {
				return "the AWS CLI (aws) is not installed"
			}
			return ""
		}, `"Message" : "hello"`},
		{"sns-boto3", "python3", []string{"-c"}, func() string {
			if exec.Command("python3", "-c", "import boto3").Run() != nil {
				return "python3 with boto3 is not installed"
			}
			return ""
		}, "hello\n"},
	} {
		t.Run(tc.recipe, func(t *testing.T) {
			t.Parallel()
			if why := tc.skip(); why != "" {
				t.Skip(why)
			}
			if _, err := exec.LookPath(tc.interpreter); err != nil {
				t.Skip(tc.interpreter + " is not installed")
			}
			script := docRecipe(t, "docs/wire.md", tc.recipe)
			p := startBuilt(t, "-clock", "virtual", "-v")
			script = strings.ReplaceAll(script, "http://127.0.0.1:9324", p.endpoint)
			cmd := exec.Command(tc.interpreter, append(tc.args, script)...)
			cmd.Env = awsEnv(t)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			require.NoError(t, cmd.Run(), "the recipe as written: stdout %s\nstderr %s", stdout.String(), stderr.String())
			assert.Contains(t, stdout.String(), tc.want, "the queue received the publication")
			require.Equal(t, 0, p.signal(t, syscall.SIGTERM))
			assert.NotContains(t, p.stderr.String(), "lost", "no delivery lost:\n%s", p.stderr.String())
		})
	}
}
