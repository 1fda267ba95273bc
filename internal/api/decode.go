package api

import (
	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/wire"
)

// DecodeOptions are the server-wide choices of how request bodies are read.
// The zero value reads them as DynamoDB does.
type DecodeOptions struct {
	// StringIntegers accepts a JSON string holding a number ("5") where an
	// Integer or Long member is expected, as DynamoDB Local does; DynamoDB
	// answers SerializationException "STRING_VALUE cannot be converted to
	// Long". See wire.Reader.AcceptStringIntegers.
	StringIntegers bool
}

// DecodeInput decodes a request body into in as DynamoDB does. An empty
// body or anything but a JSON object is a SerializationException.
func DecodeInput(body []byte, in Input) error {
	return DecodeInputWith(body, in, DecodeOptions{})
}

// DecodeInputWith is DecodeInput with the server's DecodeOptions.
func DecodeInputWith(body []byte, in Input, opts DecodeOptions) error {
	r := wire.NewReader(body)
	if opts.StringIntegers {
		r.AcceptStringIntegers()
	}
	if r.Peek() != wire.Object {
		if r.Peek() == wire.Invalid {
			return ddberr.Serialization("")
		}
		return ddberr.Serialization("Start of structure or map found where not expected")
	}
	if err := in.Decode(r); err != nil {
		return err
	}
	if err := r.End(); err != nil {
		return err
	}
	if k, ok := in.(BodyKeeper); ok {
		k.KeepBody(body)
	}
	if d, ok := in.(depthKeeper); ok {
		d.keepDepth(r.MaxDepth())
	}
	return nil
}

// object iterates the members of a JSON object; a null is an absent
// object.
func object(r *wire.Reader, typ string, fn func(key string) error) (bool, error) {
	return r.Object(typ, fn)
}

func readString(r *wire.Reader, dst **string) error {
	s, ok, err := r.String()
	if ok {
		*dst = &s
	}
	return err
}

func readBool(r *wire.Reader, dst **bool) error {
	b, ok, err := r.Bool()
	if ok {
		*dst = &b
	}
	return err
}

func readInt(r *wire.Reader, want string, dst **int64) error {
	n, ok, err := r.Int64(want)
	if ok {
		*dst = &n
	}
	return err
}

func readStringList(r *wire.Reader, dst *[]string) (bool, error) {
	list := []string{}
	ok, err := r.Array("List", func(int) error {
		s, ok, err := r.String()
		if ok {
			list = append(list, s)
		}
		return err
	})
	if ok {
		*dst = list
	}
	return ok, err
}

func readStringMap(r *wire.Reader, dst *map[string]string) error {
	m := map[string]string{}
	ok, err := r.Object("Map<String>", func(k string) error {
		s, ok, err := r.String()
		if ok {
			m[k] = s
		}
		return err
	})
	if ok {
		*dst = m
	}
	return err
}

func readItem(r *wire.Reader, dst *attr.Item) error {
	item, ok, err := attr.ReadItem(r)
	if ok {
		*dst = item
	}
	return err
}

func readItemList(r *wire.Reader, dst *[]attr.Item) (bool, error) {
	list := []attr.Item{}
	ok, err := r.Array("List", func(int) error {
		item, ok, err := attr.ReadItem(r)
		if ok {
			list = append(list, item)
		} else if err == nil {
			list = append(list, nil)
		}
		return err
	})
	if ok {
		*dst = list
	}
	return ok, err
}
