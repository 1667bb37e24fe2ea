package companion

import (
	"testing"

	"github.com/sqsfake/sqsfake/internal/bridge"
)

// TestTheDecisionsAreTheEngines: Decide converts the engine's decision by value.
func TestTheDecisionsAreTheEngines(t *testing.T) {
	for d, want := range map[PolicyDecision]bridge.Decision{
		PolicyImplicitDeny: bridge.ImplicitDeny, PolicyAllowed: bridge.Allowed, PolicyExplicitDeny: bridge.ExplicitDeny,
	} {
		if PolicyDecision(want) != d {
			t.Errorf("decision %d is the engine's %d", d, want)
		}
	}
}
