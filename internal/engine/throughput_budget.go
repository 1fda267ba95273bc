package engine

import (
	"fmt"
	"slices"
	"time"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/ddberr"
)

// DynamoDB's limits on how often a table's capacity settings change
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html,
// "Provisioned capacity decreases", and
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/switching.capacitymode.html):
//
//   - provisioned throughput of a table or of each GSI may fall four times
//     a UTC day, then once an hour after the last decrease;
//   - a table may switch to on-demand four times in a rolling 24 hours
//     (to provisioned at any time);
//   - a table's class may change twice in 30 days.
//
// Messages: docs/research-control-plane.md §6.2, §6.3, §6.6.
const (
	freeDecreasesPerDay   = 4
	decreaseSpacing       = time.Hour
	payPerRequestSwitches = 4
	payPerRequestWindow   = 24 * time.Hour
	tableClassChanges     = 2
	tableClassWindow      = 30 * 24 * time.Hour
)

// recordThroughputChange records in c a provisioned throughput change
// from (oldR, oldW) to (newR, newW) at now: raising either is an increase,
// lowering either a decrease (both in one call: one decrease). A decrease
// past the budget is LimitExceededException and records nothing.
func recordThroughputChange(c *catalog.ThroughputChanges, oldR, oldW, newR, newW int64, now time.Time) error {
	up := newR > oldR || newW > oldW
	down := newR < oldR || newW < oldW
	if down {
		n := c.DecreasesToday(now)
		if n >= freeDecreasesPerDay {
			last := time.Unix(0, c.LastDecrease).UTC()
			next := last.Add(decreaseSpacing)
			y, m, d := now.UTC().Date()
			midnight := time.Date(y, m, d+1, 0, 0, 0, 0, time.UTC)
			if now.Before(next) {
				// Live DynamoDB ends the message with a period when the
				// next chance is midnight and without one when it is an
				// hour after the last decrease (AQ, research §6.3).
				end := ""
				if !next.Before(midnight) {
					next, end = midnight, "."
				}
				return ddberr.New(ddberr.LimitExceededException, fmt.Sprintf("Subscriber limit exceeded: Provisioned throughput decreases are limited within a given UTC day. "+
					"After the first %d decreases, each subsequent decrease in the same UTC day can be performed at most once every %d seconds. "+
					"Number of decreases today: %d. Last decrease at %s. Next decrease can be made at %s%s",
					freeDecreasesPerDay, int(decreaseSpacing.Seconds()), n, longUTC(last), longUTC(next), end))
			}
		}
		c.Decreases, c.LastDecrease = n+1, now.UnixNano()
	}
	if up {
		c.LastIncrease = now.UnixNano()
	}
	return nil
}

// longUTC formats t as DynamoDB's limit messages do: "Thursday, October
// 8, 2026 at 11:20:48 PM Coordinated Universal Time".
func longUTC(t time.Time) string {
	return t.UTC().Format("Monday, January 2, 2006 at 3:04:05 PM") + " Coordinated Universal Time"
}

// within keeps the times (Unix ns) of events no older than window.
func within(times []int64, now time.Time, window time.Duration) []int64 {
	cut := now.Add(-window).UnixNano()
	return slices.DeleteFunc(slices.Clone(times), func(at int64) bool { return at <= cut })
}

// recordPayPerRequestSwitch records a switch to PAY_PER_REQUEST, refusing
// a fifth in 24 hours. DynamoDB's text for the current limit was not
// captured; this follows its 2019 text for the old once-a-day limit
// ("... limited to once in 1 day(s).": research §6.2).
func recordPayPerRequestSwitch(t *catalog.Table, now time.Time) error {
	t.PayPerRequestSwitches = within(t.PayPerRequestSwitches, now, payPerRequestWindow)
	if len(t.PayPerRequestSwitches) >= payPerRequestSwitches {
		return ddberr.New(ddberr.LimitExceededException, fmt.Sprintf("Subscriber limit exceeded: Update to PayPerRequest mode are limited to %d times in 1 day(s).", payPerRequestSwitches))
	}
	t.PayPerRequestSwitches = append(t.PayPerRequestSwitches, now.UnixNano())
	return nil
}

// checkTableClassBudget refuses any TableClass request, even one naming
// the current class, once two changes fell in the last 30 days.
func checkTableClassBudget(t *catalog.Table, now time.Time) error {
	t.TableClassChanges = within(t.TableClassChanges, now, tableClassWindow)
	if len(t.TableClassChanges) >= tableClassChanges {
		return ddberr.New(ddberr.LimitExceededException, fmt.Sprintf("Subscriber limit exceeded: Updates to TableClass are limited to %d times in 30 day(s).", tableClassChanges))
	}
	return nil
}

// throughputHistory is the description of c at now.
func throughputHistory(c catalog.ThroughputChanges, now time.Time) api.ThroughputHistory {
	h := api.ThroughputHistory{DecreasesToday: c.DecreasesToday(now)}
	if c.LastIncrease != 0 {
		h.LastIncrease = epochSeconds(c.LastIncrease)
	}
	if c.LastDecrease != 0 {
		h.LastDecrease = epochSeconds(c.LastDecrease)
	}
	return h
}
