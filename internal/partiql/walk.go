package partiql

// Walk calls fn for e and every expression inside it, parents first, in
// the order they are written.
func Walk(e Expr, fn func(Expr)) {
	if e == nil {
		return
	}
	fn(e)
	switch x := e.(type) {
	case *Collection:
		for i := range x.Elems {
			if x.Kind == CollMap {
				Walk(x.Keys[i], fn)
			}
			Walk(x.Elems[i], fn)
		}
	case *Call:
		for _, a := range x.Args {
			Walk(a, fn)
		}
	case *Binary:
		Walk(x.L, fn)
		Walk(x.R, fn)
	case *Not:
		Walk(x.X, fn)
	case *Neg:
		Walk(x.X, fn)
	case *Paren:
		Walk(x.X, fn)
	case *Between:
		Walk(x.X, fn)
		Walk(x.Lo, fn)
		Walk(x.Hi, fn)
	case *In:
		Walk(x.X, fn)
		Walk(x.List, fn)
	case *Is:
		Walk(x.X, fn)
	}
}

// walkStatement walks every expression of st in the order written.
func walkStatement(st Statement, fn func(Expr)) {
	switch s := st.(type) {
	case *Select:
		for _, x := range s.Projection {
			Walk(x, fn)
		}
		Walk(s.Where, fn)
	case *Insert:
		Walk(s.Value, fn)
	case *Update:
		if s.FromFirst {
			Walk(s.Where, fn)
		}
		for _, a := range s.Actions {
			Walk(a.Value, fn)
		}
		if !s.FromFirst {
			Walk(s.Where, fn)
		}
	case *Delete:
		Walk(s.Where, fn)
	case *Exists:
		walkStatement(s.Select, fn)
	case *ExprStatement:
		Walk(s.X, fn)
	}
}
