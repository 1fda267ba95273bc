package check

import (
	"fmt"
	"strings"
)

// closest returns the candidate that name most likely misspells: one
// equal to it but for case and '_' or '-' (userId, UserId, user_id),
// else one at most two edits away from a name of at least four
// characters, or one edit from a name of three (Usr, User); "" when none
// is, or when name is itself a candidate.
func closest(name string, candidates []string) string {
	fold := func(s string) string { return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s)) }
	maxDist := 0
	switch {
	case len(name) >= 4:
		maxDist = 2
	case len(name) == 3:
		maxDist = 1
	}
	best, bestDist := "", maxDist+1
	for _, c := range candidates {
		switch {
		case c == name:
			return ""
		case fold(c) == fold(name):
			best, bestDist = c, 0
		case bestDist > 0:
			if d := editDistance(name, c); d < bestDist {
				best, bestDist = c, d
			}
		}
	}
	return best
}

// didYouMean is closest's suggestion as a message's tail: " (did you
// mean UserId?)", or "".
func didYouMean(name string, candidates []string) string {
	if c := closest(name, candidates); c != "" {
		return fmt.Sprintf(" (did you mean %s?)", c)
	}
	return ""
}

// sameName reports whether a and b differ only in case and '_' or '-'
// (userId, UserId, user_id).
func sameName(a, b string) bool {
	fold := func(s string) string { return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s)) }
	return a != b && fold(a) == fold(b)
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
