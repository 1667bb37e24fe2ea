package sqsfake

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDocsNameOnlyExamplesThatExist pins the docs' pointers to runnable examples: every
// Example… name the README, docs/ and the companions' package docs give exists as a function
// of a test file, so a reader who looks one up finds it (issue 32: the README's snippets are
// the runnable examples it names).
func TestDocsNameOnlyExamplesThatExist(t *testing.T) {
	defined := map[string]bool{}
	funcRe := regexp.MustCompile(`(?m)^func (Example\w*)\(`)
	var docs []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != "." || d.Name() == "node_modules" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		switch {
		case strings.HasSuffix(path, "_test.go"):
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range funcRe.FindAllStringSubmatch(string(b), -1) {
				defined[m[1]] = true
			}
		case strings.HasSuffix(path, ".md"), strings.HasSuffix(path, "doc.go"):
			docs = append(docs, path)
		}
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, defined)
	nameRe := regexp.MustCompile("`(Example\\w*)`")
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		require.NoError(t, err)
		var missing []string
		for _, m := range nameRe.FindAllStringSubmatch(string(b), -1) {
			if !defined[m[1]] && !slices.Contains(missing, m[1]) {
				missing = append(missing, m[1])
			}
		}
		assert.Empty(t, missing, "%s names examples that do not exist", doc)
	}
}
