package gpgpusim

import (
	"bytes"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// YAML writes the device as a config that arch's strict loader reads
// back: every field with a comment naming the options it came from (or
// "base"), and at the top the options that were ignored.
func (r *Result) YAML() ([]byte, error) {
	var root yaml.Node
	if err := root.Encode(r.Device); err != nil {
		return nil, err
	}
	r.comment(&root, "")
	doc := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{&root}, HeadComment: r.header()}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	out := b.Bytes()
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	return out, nil
}

// comment gives every key of mapping n under path its provenance.
func (r *Result) comment(n *yaml.Node, path string) {
	if n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		p := k.Value
		if path != "" {
			p = path + "." + k.Value
		}
		switch text, ok := r.From[p]; {
		case ok:
			k.LineComment = text
		case v.Kind != yaml.MappingNode:
			k.LineComment = "base"
		}
		if v.Kind == yaml.SequenceNode && v.Style == yaml.FlowStyle {
			v.LineComment, k.LineComment = k.LineComment, ""
		}
		r.comment(v, p)
	}
}

// header is the comment at the top: what the file is, and the ignored
// options.
func (r *Result) header() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Imported by 'gpumemsim devices import' from the GPGPU-Sim option file\n%s.\n", r.File)
	fmt.Fprintf(&b, "Each field's comment names the options it was translated from; \"base\"\n")
	fmt.Fprintf(&b, "marks a field no GPGPU-Sim option sets, taken from configs/%s.yaml.\n", r.Base)
	if len(r.Ignored) == 0 {
		b.WriteString("\nIgnored options: none.")
		return b.String()
	}
	fmt.Fprintf(&b, "\nIgnored options (%d):\n", len(r.Ignored))
	for _, ig := range r.Ignored {
		b.WriteString("  " + IgnoredLine(r.File, ig) + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// IgnoredLine describes one ignored option as file:line: -name value: why.
func IgnoredLine(file string, ig Ignored) string {
	o := ig.Option
	v := o.Value
	if len(v) > 40 {
		v = v[:37] + "..."
	}
	return fmt.Sprintf("%s:%d: %s %s: %s", file, o.Line, o.Name, v, ig.Why)
}
