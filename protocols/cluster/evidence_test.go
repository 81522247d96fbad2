package cluster_test

import (
	"flag"
	"testing"

	"github.com/ordercheck/ordercheck/protocols/internal/evidence"
)

var update = flag.Bool("update", false, "rewrite docs/evidence-cluster.md")

// TestEvidence sets the model's verdicts beside the Go port's evidence,
// asserts that they agree, and keeps the table in docs/evidence-cluster.md
// (-update rewrites it).
func TestEvidence(t *testing.T) {
	evidence.Table{
		Protocol: "cluster",
		Path:     "../../docs/evidence-cluster.md",
		Intro: "# cluster: the model against the Go port\n\n" +
			"Produced by `go test ./protocols/cluster -run TestEvidence -update`. Model columns: ordercheck's verdicts (caller, spreader, leaver); data-race is judged alike under every model, and every cluster verdict is the same under sc, tso, rc11 and rc11-consume. " +
			"Go columns: the port in `protocols/cluster/impl.go` and `protocols/wamr`, each round a fresh cluster with the caller making one import call, one thread leaving and two trapping: " +
			"Go's race detector on 20 rounds in a subprocess, porcupine on the history of 200 rounds (against `wamr.Spec`, the specification the model's `linearizability` uses), and the stress run's watchdog.",
		Outro: "They agree in every row. The race detector reports the original's unlocked swap and unlocked exception copy, and nothing once `module_inst` is atomic: " +
			"yet porcupine still finds the lost exception in the atomic version on x86, as the model does under every model — a spreader reads the callee's instance before the restore and writes its exception after the transfer, a window no memory ordering closes. " +
			"atomic-relaxed has no Go form: Go's atomics are sequentially consistent, so its Go version would be atomic-acqrel's program; the model gives both the same verdicts.\n",
		Rows: []evidence.Row{
			{Variant: "original"}, {Variant: "pr2685"}, {Variant: "atomic-relaxed", NoGo: true}, {Variant: "atomic-acqrel"}, {Variant: "exc-in-env"},
		},
		Clients: 4,
		Rounds:  200,
	}.Check(t, *update)
}
