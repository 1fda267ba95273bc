package attr

// MaxItemSize is DynamoDB's item size limit in bytes (400 KB).
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#limits-items
const MaxItemSize = 400 * 1024

// Size returns the size in bytes DynamoDB counts for v (without the
// attribute name): UTF-8 bytes for S, raw bytes for B, about one byte per
// two significant digits plus one for N, one byte for BOOL and NULL, the
// members' sizes for sets, and for L and M three bytes of overhead plus one
// byte per element plus the elements (and, for M, the member names).
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html
func (v Value) Size() int {
	switch v.kind {
	case S, B:
		return len(v.str)
	case N:
		return numberSize(v.str)
	case BOOL, NULL:
		return 1
	case SS, BS:
		n := 0
		for _, s := range v.set {
			n += len(s)
		}
		return n
	case NS:
		n := 0
		for _, s := range v.set {
			n += numberSize(s)
		}
		return n
	case L:
		n := 3
		for _, e := range v.list {
			n += 1 + e.Size()
		}
		return n
	case M:
		n := 3
		for k, e := range v.m {
			n += 1 + len(k) + e.Size()
		}
		return n
	}
	return 0
}

// Size returns the item's size in bytes: the sum of its attribute names'
// UTF-8 lengths and its values' sizes.
func (item Item) Size() int {
	n := 0
	for k, v := range item {
		n += len(k) + v.Size()
	}
	return n
}
