package render

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/protocols/lang"
)

// ProtocolVariant prints the protocol file as variant makes it: its
// parameters' values, its blocks in place (lang.Protocol.FormatVariant).
func ProtocolVariant(w io.Writer, pr *checker.Protocol, variant string) error {
	text, err := pr.File.FormatVariant(variant)
	if err != nil {
		return err
	}
	fmt.Fprint(w, text)
	return nil
}

// Protocol describes a protocol: its title, parameters with their
// defaults, variants with what they bind and replace, properties and
// threads.
func Protocol(w io.Writer, pr *checker.Protocol) {
	fmt.Fprintf(w, "protocol %s: %s\n\nparameters:\n", pr.File.Name, pr.File.Title)
	for _, p := range pr.File.Params {
		fmt.Fprintf(w, "  %-8s = %-8s %s\n", p.Name, p.Default.Text, p.Doc)
	}
	fmt.Fprintln(w, "\nvariants:")
	for _, v := range pr.File.Variants {
		binds := lang.BindTexts(v.Binds)
		var blocks []string
		for name := range v.Replace {
			blocks = append(blocks, "replaces "+name)
		}
		sort.Strings(blocks)
		binds = append(binds, blocks...)
		def := ""
		if v.Default {
			def = " (default)"
		}
		fmt.Fprintf(w, "  %s%s: %s\n    %s\n", v.Name, def, v.Doc, strings.Join(binds, ", "))
	}
	fmt.Fprintln(w, "\nproperties:")
	for _, p := range pr.File.Props {
		fmt.Fprintf(w, "  %-10s %s\n", p.Name, p.Doc)
	}
	fmt.Fprintln(w, "\nthreads:")
	for _, t := range pr.File.Threads {
		n := t.Name
		if t.Count != nil {
			n += "[...]"
		}
		if t.Spawned {
			n += " (spawned)"
		}
		fmt.Fprintf(w, "  %s\n", n)
	}
}

// ProtocolSummary writes a protocol in three lines, as a catalogue lists
// it: name and title, variants (the default marked), properties.
func ProtocolSummary(w io.Writer, pr *checker.Protocol) {
	fmt.Fprintf(w, "%s  %s\n", pr.File.Name, pr.File.Title)
	var vs []string
	for _, v := range pr.File.Variants {
		n := v.Name
		if v.Default {
			n += " (default)"
		}
		vs = append(vs, n)
	}
	fmt.Fprintf(w, "  variants:   %s\n", strings.Join(vs, ", "))
	fmt.Fprintf(w, "  properties: %s\n", strings.Join(pr.PropNames(), ", "))
}
