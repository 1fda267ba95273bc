package auth

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync/atomic"
)

// Key is one access key: a credentials-file profile's aws_access_key_id,
// aws_secret_access_key and, optionally, aws_session_token.
type Key struct {
	// AccessKeyID is the key id clients put first in the Credential.
	AccessKeyID string
	// SecretAccessKey is the secret clients derive their signing keys from.
	SecretAccessKey string
	// SessionToken, when set, must be sent as X-Amz-Security-Token with
	// every request signed with this key; when empty, requests must not
	// send one.
	SessionToken string
	// Profile is the name of the profile the key came from ("" for keys
	// given to NewKeys without one).
	Profile string
	// Line is the line of the aws_access_key_id in the file (0 when not
	// from a file).
	Line int
}

// Keys is a set of access keys, by access key id. The zero value and nil
// hold no keys. A *Keys is safe for concurrent use.
type Keys struct {
	byID map[string]*keyEntry
}

// keyEntry is a Key and the signing key last derived from it.
type keyEntry struct {
	Key
	derived atomic.Pointer[derivedKey]
}

// NewKeys returns the set of the given keys. An empty AccessKeyID or
// SecretAccessKey, an AccessKeyID with '/' or white space (it could never
// appear in a Credential), or the same AccessKeyID twice with different
// secrets or tokens is an error. No keys at all is not an error here.
func NewKeys(keys ...Key) (*Keys, error) {
	ks := &Keys{byID: make(map[string]*keyEntry, len(keys))}
	for _, k := range keys {
		if err := checkKeyID(k.AccessKeyID); err != nil {
			return nil, err
		}
		if k.SecretAccessKey == "" {
			return nil, fmt.Errorf("access key %s has no secret access key", k.AccessKeyID)
		}
		if old, ok := ks.byID[k.AccessKeyID]; ok {
			if old.SecretAccessKey != k.SecretAccessKey || old.SessionToken != k.SessionToken {
				return nil, fmt.Errorf("access key %s is given twice with different secrets or session tokens", k.AccessKeyID)
			}
			continue
		}
		ks.byID[k.AccessKeyID] = &keyEntry{Key: k}
	}
	return ks, nil
}

func checkKeyID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("empty aws_access_key_id")
	case strings.ContainsAny(id, "/ \t,\r\n"):
		return fmt.Errorf("aws_access_key_id %q contains '/', ',' or white space, which a SigV4 Credential cannot carry", id)
	}
	return nil
}

// Len returns the number of distinct access keys.
func (ks *Keys) Len() int {
	if ks == nil {
		return 0
	}
	return len(ks.byID)
}

// Lookup returns the key with the given access key id.
func (ks *Keys) Lookup(accessKeyID string) (Key, bool) {
	if e := ks.entry(accessKeyID); e != nil {
		return e.Key, true
	}
	return Key{}, false
}

func (ks *Keys) entry(accessKeyID string) *keyEntry {
	if ks == nil {
		return nil
	}
	return ks.byID[accessKeyID]
}

// AccessKeyIDs returns the access key ids, sorted (for logs: no secrets).
func (ks *Keys) AccessKeyIDs() []string {
	if ks == nil {
		return nil
	}
	ids := make([]string, 0, len(ks.byID))
	for id := range ks.byID {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// LoadError is a problem in a credentials file: the file's name, the line
// (1-based; 0 when the problem is the whole file) and what is wrong.
type LoadError struct {
	Path string
	Line int
	Msg  string
}

// Error returns "path:line: msg", or "path: msg" without a line.
func (e *LoadError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return e.Path + ": " + e.Msg
}

// MaxKeysFileBytes bounds a credentials file (1 MiB): a bigger one is
// refused rather than read.
const MaxKeysFileBytes = 1 << 20

// LoadKeys reads the AWS shared-credentials file at path (the format of
// ~/.aws/credentials) and returns every profile's key. See ReadKeys for the
// format and the errors; a file that cannot be read is an error too.
func LoadKeys(path string) (*Keys, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadKeys(f, path)
}

// ReadKeys reads a credentials file from rd; name is what errors call it.
//
// The format is the AWS shared-credentials file's (INI), read as the AWS
// SDK for Go v2 reads it (github.com/aws/aws-sdk-go-v2/config, its
// internal/ini package), line by line:
//
//   - "[name]" starts a profile; text after '#' or ';' on that line is a
//     comment. Spaces inside the brackets are trimmed, and "[a   b]" names
//     the profile "a b".
//   - "key = value" or "key: value" (the first '=' or ':' splits) sets a
//     property; the key is case-insensitive, white space around key and
//     value is dropped, a value wrapped in '...' or "..." is unwrapped, and
//     " #", " ;", "\t#" or "\t;" starts a trailing comment.
//   - Blank lines and lines whose first non-blank character is '#' or ';'
//     are comments. A profile named twice is one profile.
//
// Each profile with aws_access_key_id and aws_secret_access_key (and
// optionally aws_session_token) gives a key; other properties and profiles
// without keys (role_arn, region, ...) are ignored.
//
// Where the Go SDK would silently drop or mangle a credential, and where
// botocore (the AWS CLI, boto3) would read the file differently or refuse
// it, ReadKeys returns a *LoadError naming the line instead:
//
//   - a profile with an access key id but no secret, or a secret or token
//     but no access key id;
//   - an empty or unusable access key id ('/', ',' or white space), or an
//     empty secret;
//   - the same access key id in two profiles with different secrets or
//     tokens;
//   - aws_access_key_id, aws_secret_access_key or aws_session_token set
//     twice in a profile (botocore refuses duplicate options), outside any
//     profile (botocore refuses the file; the Go SDK ignores it), on an
//     indented line, or followed by an indented continuation line
//     (botocore reads a multi-line value, the Go SDK something else);
//   - a quote left open ("'abc" or a lone '"'), which makes the Go SDK panic;
//   - a line starting '[' that is not a section header, a "[]" section, a
//     "[profile name]" section (the SDKs ignore those in a credentials
//     file), and a line that is none of the above (botocore refuses it);
//   - a credential value in quotes, or followed by a " #" or " ;" comment:
//     botocore keeps the quotes and the comment in the value, the Go SDK
//     drops them (see SOURCES.md), so a client would sign with other keys
//     than dynago reads.
//   - no key in the whole file (Line 0).
func ReadKeys(rd io.Reader, name string) (*Keys, error) {
	data, err := io.ReadAll(io.LimitReader(rd, MaxKeysFileBytes+1))
	if err != nil {
		return nil, &LoadError{Path: name, Msg: err.Error()}
	}
	if len(data) > MaxKeysFileBytes {
		return nil, &LoadError{Path: name, Msg: fmt.Sprintf("larger than %d bytes", MaxKeysFileBytes)}
	}
	p := keysParser{name: name, profiles: map[string]*profileKeys{}}
	if err := p.parse(string(data)); err != nil {
		return nil, err
	}
	return p.keys()
}

// The credential properties of a profile.
const (
	propKeyID  = "aws_access_key_id"
	propSecret = "aws_secret_access_key"
	propToken  = "aws_session_token"
)

// profileKeys is one profile's credential properties, with their lines.
type profileKeys struct {
	name  string
	line  int // of the first [name] header
	vals  [3]string
	lines [3]int // 0 when unset
}

func propIndex(key string) int {
	switch key {
	case propKeyID:
		return 0
	case propSecret:
		return 1
	case propToken:
		return 2
	}
	return -1
}

type keysParser struct {
	name     string
	profiles map[string]*profileKeys
	order    []*profileKeys
	cur      *profileKeys
	// curProp is the credential property the last property line set (-1
	// after another property or a section header), for continuation lines.
	curProp int
}

func (p *keysParser) errorf(line int, format string, args ...any) error {
	return &LoadError{Path: p.name, Line: line, Msg: fmt.Sprintf(format, args...)}
}

func (p *keysParser) parse(text string) error {
	p.curProp = -1
	for n, line := range strings.Split(text, "\n") {
		if err := p.line(n+1, line); err != nil {
			return err
		}
	}
	return nil
}

func isLineSpace(c byte) bool { return c == ' ' || c == '\t' }

func (p *keysParser) line(n int, line string) error {
	if strings.TrimSpace(line) == "" {
		return nil
	}
	if t := strings.TrimLeft(line, " \t"); t[0] == '#' || t[0] == ';' {
		return nil
	}
	// The Go SDK tries a section header first, whatever the indentation.
	if s := strings.TrimSpace(cutProfileComment(line)); len(s) >= 2 && s[0] == '[' && s[len(s)-1] == ']' {
		return p.section(n, s)
	}
	if strings.HasPrefix(strings.TrimSpace(line), "[") {
		return p.errorf(n, "malformed section header %q (want [profile-name])", strings.TrimSpace(line))
	}
	if isLineSpace(line[0]) {
		return p.indented(n, strings.TrimLeft(line, " \t"))
	}
	return p.property(n, line)
}

// cutProfileComment cuts a section line at its first '#' or ';', as the Go
// SDK does.
func cutProfileComment(s string) string {
	if i := strings.IndexAny(s, "#;"); i >= 0 {
		return s[:i]
	}
	return s
}

// section handles a "[name]" line (s is trimmed, comment cut) as the Go
// SDK's asProfile does.
func (p *keysParser) section(n int, s string) error {
	name := sdkProfileName(strings.TrimSpace(s[1 : len(s)-1]))
	switch {
	case name == "":
		return p.errorf(n, "section with no profile name")
	case strings.HasPrefix(name, "profile "):
		return p.errorf(n, "[%s]: the AWS SDKs ignore sections named \"profile ...\" in a credentials file; write [%s]",
			name, strings.TrimPrefix(name, "profile "))
	}
	pk, ok := p.profiles[name]
	if !ok {
		pk = &profileKeys{name: name, line: n}
		p.profiles[name] = pk
		p.order = append(p.order, pk)
	}
	p.cur, p.curProp = pk, -1
	return nil
}

// sdkProfileName is the profile name the Go SDK derives from the text
// inside the brackets (its splitProfile): a first word and the rest after
// the run of blanks that follows it, joined by one space.
func sdkProfileName(s string) string {
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s
	}
	rest := strings.TrimLeft(s[i:], " \t")
	return s[:i] + " " + rest
}

func (p *keysParser) property(n int, line string) error {
	k, v, ok := splitProperty(strings.TrimRight(trimPropertyComment(line), " \t"))
	if !ok {
		return p.errorf(n, "expected [profile], key = value or a comment, got %q", strings.TrimSpace(line))
	}
	i := propIndex(strings.ToLower(k))
	if p.cur == nil {
		if i >= 0 {
			return p.errorf(n, "%s outside any [profile] section", propName(i))
		}
		return p.errorf(n, "%q before any [profile] section", strings.TrimSpace(line))
	}
	p.curProp = i
	if i < 0 {
		return nil
	}
	// The SDKs read these two forms differently (SOURCES.md): refused, so
	// that dynago and every client of the same file agree on the keys.
	if _, raw, _ := splitProperty(strings.TrimRight(line, " \t")); raw != v {
		return p.errorf(n, "%s: a comment after the value: the Go SDK cuts it off, botocore keeps it in the value; put the comment on a line of its own", propName(i))
	}
	if len(v) > 0 && (v[0] == '"' || v[0] == '\'') {
		if _, err := unquote(v); err == nil {
			return p.errorf(n, "%s: a quoted value: the Go SDK drops the quotes, botocore keeps them; write the value without quotes", propName(i))
		}
	}
	val, err := unquote(v)
	if err != nil {
		return p.errorf(n, "%s: %v", propName(i), err)
	}
	if first := p.cur.lines[i]; first != 0 {
		return p.errorf(n, "[%s] sets %s again (first at line %d)", p.cur.name, propName(i), first)
	}
	p.cur.vals[i], p.cur.lines[i] = val, n
	return nil
}

// indented handles a line starting with blanks: to the Go SDK a nested
// property or a continuation of the previous value, to botocore a
// continuation. Either way it must not touch a credential.
func (p *keysParser) indented(n int, t string) error {
	if p.curProp >= 0 {
		return p.errorf(n, "indented line after %s: a credential is one line (botocore would read a multi-line value)", propName(p.curProp))
	}
	if k, _, ok := splitProperty(strings.TrimRight(trimPropertyComment(t), " \t")); ok {
		if i := propIndex(strings.ToLower(k)); i >= 0 {
			return p.errorf(n, "indented %s: start the line with the key", propName(i))
		}
	}
	return nil
}

func propName(i int) string { return [...]string{propKeyID, propSecret, propToken}[i] }

// trimPropertyComment cuts a trailing comment as the Go SDK does: at " #",
// " ;", "\t#" or "\t;".
func trimPropertyComment(s string) string {
	for _, c := range [...]string{" #", " ;", "\t#", "\t;"} {
		s, _, _ = strings.Cut(s, c)
	}
	return s
}

// splitProperty splits at the first '=' or ':' as the Go SDK does.
func splitProperty(s string) (k, v string, ok bool) {
	i := strings.IndexAny(s, "=:")
	if i < 0 {
		return "", "", false
	}
	return strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+1:]), true
}

// unquote unwraps '...' or "..." as the Go SDK does, refusing a lone quote
// (on which the SDK's unquote panics) and a value that starts with a quote
// it does not close.
func unquote(s string) (string, error) {
	if s == "" || (s[0] != '\'' && s[0] != '"') {
		return s, nil
	}
	if len(s) < 2 || s[len(s)-1] != s[0] {
		return "", fmt.Errorf("unbalanced quote in %q", s)
	}
	return s[1 : len(s)-1], nil
}

// keys checks the profiles and returns their keys.
func (p *keysParser) keys() (*Keys, error) {
	ks := &Keys{byID: map[string]*keyEntry{}}
	for _, pk := range p.order {
		id, secret, token := pk.vals[0], pk.vals[1], pk.vals[2]
		switch {
		case pk.lines[0] == 0 && pk.lines[1] == 0 && pk.lines[2] == 0:
			continue // a profile with other settings only
		case pk.lines[0] == 0:
			i := 1 // the secret, else the token
			if pk.lines[1] == 0 {
				i = 2
			}
			return nil, p.errorf(pk.lines[i], "profile [%s] has %s but no %s", pk.name, propName(i), propKeyID)
		case pk.lines[1] == 0:
			return nil, p.errorf(pk.lines[0], "profile [%s] has %s but no %s", pk.name, propKeyID, propSecret)
		}
		if err := checkKeyID(id); err != nil {
			return nil, p.errorf(pk.lines[0], "profile [%s]: %v", pk.name, err)
		}
		if secret == "" {
			return nil, p.errorf(pk.lines[1], "profile [%s]: empty %s", pk.name, propSecret)
		}
		if old, ok := ks.byID[id]; ok {
			if old.SecretAccessKey != secret || old.SessionToken != token {
				return nil, p.errorf(pk.lines[0], "access key %s in profile [%s] has a different secret or session token from profile [%s] (line %d)",
					id, pk.name, old.Profile, old.Line)
			}
			continue
		}
		ks.byID[id] = &keyEntry{Key: Key{AccessKeyID: id, SecretAccessKey: secret, SessionToken: token, Profile: pk.name, Line: pk.lines[0]}}
	}
	if len(ks.byID) == 0 {
		return nil, &LoadError{Path: p.name, Msg: "no credentials: no profile has both aws_access_key_id and aws_secret_access_key"}
	}
	return ks, nil
}
