package execenv_test

import (
	"flag"
	"testing"

	"github.com/ordercheck/ordercheck/protocols/internal/evidence"
)

var update = flag.Bool("update", false, "rewrite docs/evidence-execenv.md")

// TestEvidence sets the model's verdicts beside the Go port's evidence,
// asserts that they agree, and keeps the table in docs/evidence-execenv.md
// (-update rewrites it).
func TestEvidence(t *testing.T) {
	var rows []evidence.Row
	for _, params := range []map[string]string{nil, {"SPAWN": "embedder"}} {
		for _, v := range []string{"original", "skip-start", "lock-across-start", "pr2685", "pr2882", "temp-env", "start-in-child", "exc-in-env"} {
			rows = append(rows, evidence.Row{Variant: v, Params: params})
		}
	}
	evidence.Table{
		Protocol: "execenv",
		Path:     "../../docs/evidence-execenv.md",
		Intro: "# execenv: the model against the Go port\n\n" +
			"Produced by `go test ./protocols/execenv -run TestEvidence -update`. Model columns: ordercheck's verdicts (parent, trapper, spawned child; `HWB=1`); data-race is judged alike under every model, and every execenv verdict is the same under sc, tso, rc11 and rc11-consume. " +
			"Go columns: the port in `protocols/execenv/impl.go` and `protocols/wamr`, each round a fresh cluster with a parent spawning a child (its start function trapping in a random half of the rounds) and three trapping threads: " +
			"Go's race detector on 20 rounds in a subprocess, porcupine on the history of 100 rounds (against `wamr.Spec`, the specification the model's `linearizability` uses), and the stress run's watchdog (a round unfinished after a second is blocked).",
		Outro: "They agree in every row. The race detector reports the unlocked swap of `module_inst` (original, and exc-in-env, whose search still compares `module_inst`) and nothing on the embedder path, where `cluster->lock` covers the swap; " +
			"porcupine finds the original's lost exception (a raise that reached the child instance, with nothing moved back on restore) on x86 as the model does under every model, since it is an interleaving bug; " +
			"and the Go port blocks exactly where the model deadlocks: a trapping start under `cluster->lock` (lock-across-start; original and exc-in-env on the embedder path) and PR #2685's self-lock on the embedder path. " +
			"A blocked run's history holds only the operations that returned, so its porcupine verdict says nothing about the blocked ones. " +
			"start-once and tls have no Go column: they are checked by the model's assertions, not by the history.\n",
		Rows:    rows,
		Clients: 4,
		Rounds:  100,
	}.Check(t, *update)
}
