package sqsfake_test

import (
	"errors"
	"fmt"

	"github.com/sqsfake/sqsfake"
)

// New panics on an option value it does not allow, as regexp.MustCompile does on a bad
// pattern. A program that builds options from its own configuration checks them first and
// reports the error instead.
func ExampleCheckOptions() {
	region, account := "eu-west-1", "42" // read from a configuration file, say
	err := sqsfake.CheckOptions(sqsfake.WithRegion(region), sqsfake.WithAccountID(account))
	fmt.Println(err)
	var oe *sqsfake.OptionError
	if errors.As(err, &oe) {
		fmt.Println("option:", oe.Option, "value:", oe.Value)
	}
	// Output:
	// sqsfake: WithAccountID("42"): want 12 digits, such as 123456789012
	// option: WithAccountID value: "42"
}
