package main

import (
	"context"
	"fmt"
	"io"
)

// runInfer prints what infer_number says of a number: its type, validity and likely carriers.
func runInfer(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	r := newRemote("infer", getenv, stdin, stdout, stderr)
	pos, err := r.parse(args, "infer NUMBER [--json]", exactly(1))
	if err != nil {
		return helpOK(err)
	}
	c, err := r.client()
	if err != nil {
		return err
	}
	in, err := c.InferNumber(ctx, pos[0])
	if err != nil {
		return apiError(err)
	}
	if r.json {
		return r.printJSON(in)
	}
	v := in.Validation
	fmt.Fprintf(stdout, "number    %s\n", printable(v.ParsedNumber))
	fmt.Fprintf(stdout, "type      %s\n", in.NumberType)
	fmt.Fprintf(stdout, "valid     %s%s\n", yesNo(v.IsValid), reason(v.Reason))
	if v.CheckDigitPassed != nil {
		fmt.Fprintf(stdout, "check     %s\n", yesNo(v.CheckDigitPassed))
	}
	fmt.Fprintf(stdout, "decision  %s\n", in.ShippingLine.Decision)
	if len(in.ShippingLine.Candidates) == 0 {
		fmt.Fprintln(stdout, "no shipping line could be inferred")
		return nil
	}
	tw := table(stdout, "SCAC", "SHIPPING LINE", "CONFIDENCE")
	for _, cand := range in.ShippingLine.Candidates {
		row(tw, cand.SCAC, cand.Name, fmt.Sprintf("%.3f", cand.Confidence))
	}
	return tw.Flush()
}

func yesNo(b *bool) string {
	switch {
	case b == nil:
		return "unknown"
	case *b:
		return "yes"
	}
	return "no"
}

func reason(s string) string {
	if s == "" {
		return ""
	}
	return " (" + printable(s) + ")"
}
