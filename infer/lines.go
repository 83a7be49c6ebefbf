package infer

// Lines ranks the lines likely to have issued number, by primary SCAC: Infer's candidates, the
// most likely first. A number Infer refuses, or one it places with no line, has none. It makes
// the engine a boxwatch.LineRanker, which the tracking engine's auto-detection asks.
func (e *Engine) Lines(number string) []string {
	res, err := e.Infer(number)
	if err != nil {
		return nil
	}
	scacs := make([]string, 0, len(res.ShippingLine.Candidates))
	for _, c := range res.ShippingLine.Candidates {
		scacs = append(scacs, c.SCAC)
	}
	return scacs
}
