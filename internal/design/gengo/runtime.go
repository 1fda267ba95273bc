package gengo

// runtimeHelpers are the generated package's AttributeValue helpers.
const runtimeHelpers = `// shardOf is a write shard for value: FNV-1a, modulo count.
func shardOf(value string, count int) int {
	h := fnv.New32a()
	h.Write([]byte(value))
	return int(h.Sum32() % uint32(count))
}

func avS(s string) types.AttributeValue {
	if s == "" {
		return nil
	}
	return &types.AttributeValueMemberS{Value: s}
}

func avN(n string) types.AttributeValue {
	if n == "" {
		return nil
	}
	return &types.AttributeValueMemberN{Value: n}
}

// avNull is NULL true for true, and nothing for false.
func avNull(b bool) types.AttributeValue {
	if !b {
		return nil
	}
	return &types.AttributeValueMemberNULL{Value: true}
}

func avBool(b bool) types.AttributeValue { return &types.AttributeValueMemberBOOL{Value: b} }

func avB(b []byte) types.AttributeValue {
	if len(b) == 0 {
		return nil
	}
	return &types.AttributeValueMemberB{Value: b}
}

func avSS(ss []string) types.AttributeValue {
	if len(ss) == 0 {
		return nil
	}
	return &types.AttributeValueMemberSS{Value: ss}
}

func avNS(ns []string) types.AttributeValue {
	if len(ns) == 0 {
		return nil
	}
	return &types.AttributeValueMemberNS{Value: ns}
}

func avBS(bs [][]byte) types.AttributeValue {
	if len(bs) == 0 {
		return nil
	}
	return &types.AttributeValueMemberBS{Value: bs}
}

func avL(l []types.AttributeValue) types.AttributeValue {
	if l == nil {
		return nil
	}
	return &types.AttributeValueMemberL{Value: l}
}

func avM(m map[string]types.AttributeValue) types.AttributeValue {
	if m == nil {
		return nil
	}
	return &types.AttributeValueMemberM{Value: m}
}

// textOf is a scalar key attribute's text ("" for anything else).
func textOf(v types.AttributeValue) string {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return v.Value
	case *types.AttributeValueMemberN:
		return v.Value
	case *types.AttributeValueMemberB:
		return string(v.Value)
	}
	return ""
}

func wrongType(v types.AttributeValue, want string) error {
	return fmt.Errorf("%T is not %s", v, want)
}

func decodeS(v types.AttributeValue, dst *string) error {
	s, ok := v.(*types.AttributeValueMemberS)
	if !ok {
		return wrongType(v, "S")
	}
	*dst = s.Value
	return nil
}

func decodeN(v types.AttributeValue, dst *string) error {
	n, ok := v.(*types.AttributeValueMemberN)
	if !ok {
		return wrongType(v, "N")
	}
	*dst = n.Value
	return nil
}

func decodeInt(v types.AttributeValue, dst *int64) error {
	n, ok := v.(*types.AttributeValueMemberN)
	if !ok {
		return wrongType(v, "N")
	}
	i, err := strconv.ParseInt(n.Value, 10, 64)
	*dst = i
	return err
}

func decodeBool(v types.AttributeValue, dst *bool) error {
	switch b := v.(type) {
	case *types.AttributeValueMemberBOOL:
		*dst = b.Value
	case *types.AttributeValueMemberNULL:
		*dst = b.Value
	default:
		return wrongType(v, "BOOL")
	}
	return nil
}

func decodeB(v types.AttributeValue, dst *[]byte) error {
	b, ok := v.(*types.AttributeValueMemberB)
	if !ok {
		return wrongType(v, "B")
	}
	*dst = b.Value
	return nil
}

func decodeSS(v types.AttributeValue, dst *[]string) error {
	s, ok := v.(*types.AttributeValueMemberSS)
	if !ok {
		return wrongType(v, "SS")
	}
	*dst = s.Value
	return nil
}

func decodeNS(v types.AttributeValue, dst *[]string) error {
	s, ok := v.(*types.AttributeValueMemberNS)
	if !ok {
		return wrongType(v, "NS")
	}
	*dst = s.Value
	return nil
}

func decodeBS(v types.AttributeValue, dst *[][]byte) error {
	b, ok := v.(*types.AttributeValueMemberBS)
	if !ok {
		return wrongType(v, "BS")
	}
	*dst = b.Value
	return nil
}

func decodeL(v types.AttributeValue, dst *[]types.AttributeValue) error {
	l, ok := v.(*types.AttributeValueMemberL)
	if !ok {
		return wrongType(v, "L")
	}
	*dst = l.Value
	return nil
}

func decodeM(v types.AttributeValue, dst *map[string]types.AttributeValue) error {
	m, ok := v.(*types.AttributeValueMemberM)
	if !ok {
		return wrongType(v, "M")
	}
	*dst = m.Value
	return nil
}

`
