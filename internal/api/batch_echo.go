package api

import (
	"strings"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/wire"
)

// How the batch operations echo RequestItems in a member-constraint
// message: BatchGetItem as JSON, BatchWriteItem in Java's toString form.
//
// Sources: the conformance suite's tests/tier3/error-messages/
// batchGetItem.test.ts (`Value '{"bad!name":{"Keys":[{"pk":{"S":"a"}}]}}'`,
// us-east-1 and eu-west-2, 2026-10-09) and batchWriteItem.test.ts
// (`Value '{t=[]}'`, and `'{bad!name=[WriteRequest(putRequest=PutRequest(
// item={pk=...}...)]}'`, whose inner values the regions print differently:
// eu-west-2 as object hashes, us-east-1 as fields). dynago prints the
// fields it has; the exact Java text of an AttributeValue is not pinned.

// requestItemsString is BatchGetItem's RequestItems as JSON, tables in
// request order, each KeysAndAttributes with the members it was sent.
func requestItemsString(in *BatchGetItemInput) string {
	b := []byte{'{'}
	for i, t := range in.Tables {
		if i > 0 {
			b = append(b, ',')
		}
		ka := in.RequestItems[t]
		b = wire.AppendString(b, t)
		b = append(b, `:{`...)
		sep := ""
		if ka.hasKeys {
			b = append(b, `"Keys":[`...)
			for j, k := range ka.Keys {
				if j > 0 {
					b = append(b, ',')
				}
				b = attr.AppendItem(b, k)
			}
			b = append(b, ']')
			sep = ","
		}
		if ka.AttributesToGet != nil {
			b = append(b, sep+`"AttributesToGet":[`...)
			for j, a := range ka.AttributesToGet {
				if j > 0 {
					b = append(b, ',')
				}
				b = wire.AppendString(b, a)
			}
			b = append(b, ']')
			sep = ","
		}
		if ka.ConsistentRead != nil {
			b = append(b, sep+`"ConsistentRead":`...)
			b = wire.AppendBool(b, *ka.ConsistentRead)
			sep = ","
		}
		if ka.ProjectionExpression != nil {
			b = append(b, sep+`"ProjectionExpression":`...)
			b = wire.AppendString(b, *ka.ProjectionExpression)
		}
		b = append(b, '}')
	}
	return string(append(b, '}'))
}

// writeItemsString is BatchWriteItem's RequestItems in Java's toString
// form: {t=[WriteRequest(putRequest=PutRequest(item={pk=AttributeValue(s=x)})), ...]}.
func writeItemsString(in *BatchWriteItemInput) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, t := range in.Tables {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(t + "=[")
		for j, wr := range in.RequestItems[t] {
			if j > 0 {
				b.WriteString(", ")
			}
			switch {
			case wr.HasPut:
				b.WriteString("WriteRequest(putRequest=PutRequest(item=" + javaItem(wr.Put) + "))")
			case wr.HasDelete:
				b.WriteString("WriteRequest(deleteRequest=DeleteRequest(key=" + javaItem(wr.Delete) + "))")
			default:
				b.WriteString("WriteRequest()")
			}
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return b.String()
}

// javaItem prints an item as a Java map of AttributeValue(...) fields.
func javaItem(item attr.Item) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, name := range item.SortedNames() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(name + "=AttributeValue(" + javaValue(item[name]) + ")")
	}
	b.WriteByte('}')
	return b.String()
}

func javaValue(v attr.Value) string {
	k := strings.ToLower(v.Kind().String())
	switch v.Kind() {
	case attr.S, attr.N:
		return k + "=" + v.Text()
	case attr.BOOL, attr.NULL:
		if v.BoolValue() {
			return k + "=true"
		}
		return k + "=false"
	}
	return k + "=..."
}
