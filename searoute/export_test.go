package searoute

import "github.com/boxwatch/boxwatch/geo"

// DrawnAt and Piece open the drawing of a joining point to the package's external tests.
func (n *Network) DrawnAt(e int32, t float64) geo.Point { return n.drawnAt(e, t) }

func (n *Network) Piece(e int32, t0, t1 float64) []geo.Point { return n.piece(e, t0, t1) }
