package engine

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/storage"
)

// Tagging: TagResource, UntagResource and ListTagsOfResource on a table's
// ARN or its live stream's ARN, two resources with separate tags. Tags are
// applied at once (DynamoDB takes a second or two to show them) and do not
// change the table's status.
//
// Messages: docs/research-tags.md, from live DynamoDB.

// Tag limits beyond the member constraints.
const (
	maxTagsPerResource = 50
	maxTagSetBytes     = 10240
)

// tagText is the character set DynamoDB accepts in tag keys and values:
// letters of any script, digits, white space and + - = . _ : / @.
var tagText = lazyRegexp(`^[\p{L}\p{N}\p{Z}\s+\-=._:/@]*$`)

// resourceArnPattern is an ARN: partition, service, region, account and
// resource.
var resourceArnPattern = lazyRegexp(`^arn:([^:]*):([^:]*):([^:]*):([^:]*):(.*)$`)

// tagTarget is the resource a tagging request names: a table, or, when
// stream is set, the stream with that label on the table.
type tagTarget struct {
	arn, table, stream string
}

// taggedResource resolves a tagging request's ResourceArn, with DynamoDB's
// answers for an ARN that is not one of this account's and region's
// tables or streams.
func (e *Engine) taggedResource(ctx context.Context, arn string) (tagTarget, error) {
	if !strings.HasPrefix(arn, "arn:") {
		return tagTarget{}, ddberr.Validation("One or more parameter values were invalid: ARNs must start with 'arn:': " + arn)
	}
	m := resourceArnPattern().FindStringSubmatch(arn)
	if m == nil || m[2] != "dynamodb" {
		return tagTarget{}, ddberr.Validation("One or more parameter values were invalid: Provided Arn is not a DynamoDB resource arn: " + arn)
	}
	partition, region, account, resource := m[1], m[3], m[4], m[5]
	name, rest, slash := strings.Cut(strings.TrimPrefix(resource, "table/"), "/")
	switch {
	case !strings.HasPrefix(resource, "table/"):
		return tagTarget{}, ddberr.Validation("One or more parameter values were invalid: Provided Arn is not a DynamoDB resource arn: " + arn)
	case strings.HasPrefix(rest, "index/"):
		return tagTarget{}, ddberr.Validation("One or more parameter values were invalid: Invalid resource arn provided, only table or stream is accepted. Provided resource arn: " + arn)
	case region != e.region(ctx) || partition != "aws":
		// Another region's table; another partition's (aws-cn, aws-us-gov)
		// is answered alike (GUESS: docs/research-tags.md §6).
		return tagTarget{}, ddberr.Validation("Invalid TableArn: Invalid ResourceArn provided as input " + arn)
	case account != e.opts.AccountID:
		return tagTarget{}, ddberr.New(ddberr.AccessDeniedException, "Access is denied")
	}
	target := tagTarget{arn: arn, table: name}
	if slash {
		// table/T/stream/LABEL, and nothing else after the name: a
		// trailing slash names no resource.
		label, ok := strings.CutPrefix(rest, "stream/")
		if !ok || label == "" || strings.Contains(label, "/") {
			return tagTarget{}, tagResourceNotFound(arn)
		}
		target.stream = label
	}
	return target, nil
}

// tags returns the tag list of target on its table t: the table's own, or
// its live stream's. A stream that is not the table's live one (disabled,
// replaced, never there) is ResourceNotFoundException, as DynamoDB answers
// a stream ARN that does not resolve (docs/research-tags.md §2).
func (target tagTarget) tags(t *catalog.Table) (*[]catalog.Tag, error) {
	if target.stream == "" {
		return &t.Tags, nil
	}
	if t.Stream == nil || !t.Stream.Enabled || t.Stream.Label != target.stream {
		return nil, tagResourceNotFound(target.arn)
	}
	return &t.Stream.Tags, nil
}

func tagResourceNotFound(arn string) error {
	return ddberr.New(ddberr.ResourceNotFoundException, "Requested resource not found: ResourceArn: "+arn+" not found")
}

// checkTagKey applies the rules on a tag key (TagResource and
// UntagResource).
func checkTagKey(key string) error {
	if strings.HasPrefix(strings.ToLower(key), "aws:") {
		return ddberr.Validation("Tag Key cannot be prefixed with aws:, Key: " + key)
	}
	if !tagText().MatchString(key) {
		return ddberr.Validation("The Tag Key provided is invalid, Key: " + key)
	}
	return nil
}

// TagResource adds tags to a table or its live stream, replacing the
// values of keys it already has. The tags are checked before the resource
// is looked up; a resource may have at most 50 tags of 10,240 bytes in
// all.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TagResource.html
func (e *Engine) TagResource(ctx context.Context, in *api.TagResourceInput) (api.EmptyOutput, error) {
	arn := *in.ResourceArn
	if len(in.Tags) == 0 {
		return api.EmptyOutput{}, ddberr.Validation("Atleast one Tag needs to be provided as Input.")
	}
	seen := map[string]bool{}
	for _, t := range in.Tags {
		if err := checkTagKey(*t.Key); err != nil {
			return api.EmptyOutput{}, err
		}
		if !tagText().MatchString(*t.Value) {
			return api.EmptyOutput{}, ddberr.Validation("The Tag Value provided is invalid, Value: " + *t.Value)
		}
		if seen[*t.Key] {
			return api.EmptyOutput{}, ddberr.Validation("Duplicate Tag Keys provided as input: Duplicate Tag Key found " + *t.Key)
		}
		seen[*t.Key] = true
	}
	target, err := e.taggedResource(ctx, arn)
	if err != nil {
		return api.EmptyOutput{}, err
	}
	err = e.changeTags(ctx, target, func(tags *[]catalog.Tag) error {
		for _, tag := range in.Tags {
			i := tagIndex(*tags, *tag.Key)
			if i < 0 {
				*tags = append(*tags, catalog.Tag{Key: *tag.Key, Value: *tag.Value})
			} else {
				(*tags)[i].Value = *tag.Value
			}
		}
		if len(*tags) > maxTagsPerResource {
			return ddberr.Validation("Number of Tags exceed the current limit for the provided ResourceArn")
		}
		size := 0
		for _, tag := range *tags {
			size += len(tag.Key) + len(tag.Value)
		}
		if size > maxTagSetBytes {
			return ddberr.Validation(fmt.Sprintf("Tag set size %d bytes is above max size limit of %d bytes", size, maxTagSetBytes))
		}
		return nil
	}, true)
	return api.EmptyOutput{}, err
}

// UntagResource removes tags from a table or its live stream by key; keys
// it does not have are ignored.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UntagResource.html
func (e *Engine) UntagResource(ctx context.Context, in *api.UntagResourceInput) (api.EmptyOutput, error) {
	arn := *in.ResourceArn
	switch {
	case len(in.TagKeys) == 0:
		return api.EmptyOutput{}, ddberr.Validation("Atleast one Tag Key needs to be provided as Input.")
	case len(in.TagKeys) > maxTagsPerResource:
		return api.EmptyOutput{}, ddberr.Validation("Number of Tags exceed the current limit for the provided ResourceArn")
	}
	for _, k := range in.TagKeys {
		if err := checkTagKey(k); err != nil {
			return api.EmptyOutput{}, err
		}
	}
	target, err := e.taggedResource(ctx, arn)
	if err != nil {
		return api.EmptyOutput{}, err
	}
	err = e.changeTags(ctx, target, func(tags *[]catalog.Tag) error {
		for _, k := range in.TagKeys {
			if i := tagIndex(*tags, k); i >= 0 {
				*tags = append((*tags)[:i], (*tags)[i+1:]...)
			}
		}
		return nil
	}, false)
	return api.EmptyOutput{}, err
}

// ListTagsOfResource returns a table's or its live stream's tags, all in
// one page ([] when there are none). DynamoDB neither pages them nor reads
// NextToken.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ListTagsOfResource.html
func (e *Engine) ListTagsOfResource(ctx context.Context, in *api.ListTagsOfResourceInput) (*api.ListTagsOfResourceOutput, error) {
	arn := *in.ResourceArn
	target, err := e.taggedResource(ctx, arn)
	if err != nil {
		return nil, err
	}
	out := &api.ListTagsOfResourceOutput{Tags: [][2]string{}}
	err = e.read(ctx, func(tx storage.Txn) error {
		t, err := e.lookup(tx, target.table)
		if errors.Is(err, catalog.ErrNotFound) {
			return tagResourceNotFound(arn)
		}
		if err != nil {
			return err
		}
		tags, err := target.tags(t)
		if err != nil || t.Status(e.opts.Now()) == catalog.StatusCreating {
			// CreateTable's tags show once the table is ACTIVE.
			return err
		}
		for _, tag := range *tags {
			out.Tags = append(out.Tags, [2]string{tag.Key, tag.Value})
		}
		return nil
	})
	return out, err
}

// changeTags applies change to the tags of target and stores its table.
// While the table is CREATING, TagResource (adding) is refused with
// ResourceInUseException and UntagResource is a no-op: its CreateTable
// tags are not visible yet (docs/research-tags.md §3.2).
func (e *Engine) changeTags(ctx context.Context, target tagTarget, change func(*[]catalog.Tag) error, adding bool) error {
	return e.update(ctx, func(tx storage.Txn) error {
		t, err := tableToChange(tx, target.table)
		if ddberr.Is(err, ddberr.ResourceNotFoundException) {
			return tagResourceNotFound(target.arn)
		}
		if err != nil {
			return err
		}
		if t.Status(e.opts.Now()) == catalog.StatusCreating {
			if adding {
				return ddberr.New(ddberr.ResourceInUseException, "Attempt to change a resource which is still in use: Table is being created: "+target.table)
			}
			return nil
		}
		tags, err := target.tags(t)
		if err != nil {
			return err
		}
		if err := change(tags); err != nil {
			return err
		}
		return catalog.Put(tx, t)
	})
}

func tagIndex(tags []catalog.Tag, key string) int {
	for i, t := range tags {
		if t.Key == key {
			return i
		}
	}
	return -1
}

// lazyRegexp compiles expr on first use rather than at program start: the
// server's start pays for no pattern it does not use (tagText's Unicode
// classes alone took about a millisecond of package init).
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
