package db

import (
	"context"
	"time"

	"github.com/lib/pq"
)

// RateCheck is one request against a shared rate limit: Key names the bucket (a hash, never an
// email or an IP), Every is the emission interval (a minute / the limit per minute) and Burst how
// many requests a full bucket lets through at once (Burst ≥ 1).
type RateCheck struct {
	Key   string
	Every time.Duration
	Burst int
}

// RateResult is the answer to one RateCheck: Allowed, or Wait, how long until the bucket lets the
// next request through (rounded up to the millisecond, > 0 when not allowed).
type RateResult struct {
	Allowed bool
	Wait    time.Duration
}

// RateLimitedError is StartTurn's answer to a turn its NewTurn.Rate check refused: nothing was
// stored, and the bucket lets the next request through after Wait (> 0).
type RateLimitedError struct {
	Wait time.Duration
}

func (e *RateLimitedError) Error() string {
	return "db: rate limited for " + e.Wait.String()
}

// takeRatesFrom is the GCRA take of TakeRates as SQL: an UPSERT of the buckets named by the
// parameters keys (text[]), every and tolerance (int8[], microseconds), returning key, allowed
// and ahead_ms (how far the bucket's tat runs ahead of now, ms). EXCLUDED.tat - now() is the
// check's interval; every SET expression reads the old row (r).
func takeRatesFrom(keys, every, tolerance string) string {
	return `INSERT INTO rate_limits AS r (key, tat, tolerance, allowed)
		SELECT k, now() + e * interval '1 microsecond', t * interval '1 microsecond', true
		FROM unnest(` + keys + `::text[], ` + every + `::int8[], ` + tolerance + `::int8[]) AS c(k, e, t)
		ON CONFLICT (key) DO UPDATE SET
			allowed = greatest(r.tat, now()) + (EXCLUDED.tat - now()) <= now() + EXCLUDED.tolerance,
			tat = CASE WHEN greatest(r.tat, now()) + (EXCLUDED.tat - now()) <= now() + EXCLUDED.tolerance
				THEN greatest(r.tat, now()) + (EXCLUDED.tat - now()) ELSE r.tat END,
			tolerance = EXCLUDED.tolerance
		RETURNING key, allowed, ceil(extract(epoch FROM tat - now()) * 1000)::int8 AS ahead_ms`
}

// rateArgs are the three array parameters of takeRatesFrom for checks.
func rateArgs(checks []RateCheck) (keys, every, tolerance any) {
	k := make([]string, len(checks))
	e := make([]int64, len(checks))
	t := make([]int64, len(checks))
	for i, c := range checks {
		k[i], e[i], t[i] = c.Key, c.Every.Microseconds(), c.Every.Microseconds()*int64(max(c.Burst, 1))
	}
	return pq.Array(k), pq.Array(e), pq.Array(t)
}

// rateResult is check's result from the allowed and ahead_ms that takeRatesFrom returned for it.
func rateResult(c RateCheck, allowed bool, aheadMS int64) RateResult {
	if allowed {
		return RateResult{Allowed: true}
	}
	// the next request fits once tat + Every ≤ now + Burst × Every
	wait := time.Duration(aheadMS)*time.Millisecond + c.Every - c.Every*time.Duration(max(c.Burst, 1))
	return RateResult{Wait: max(wait, time.Millisecond)}
}

// TakeRates takes one request from each check's bucket, as the generic cell rate algorithm
// (GCRA) does: a token bucket of Burst that refills one token every Every, shared by every
// instance on the database. A denied request takes nothing. One statement whatever the number of
// checks; results are in the checks' order. Keys must be distinct.
func (s *Store) TakeRates(ctx context.Context, checks ...RateCheck) ([]RateResult, error) {
	keys, every, tolerance := rateArgs(checks)
	rows, err := s.hotQuery(ctx, takeRatesFrom("$1", "$2", "$3"), keys, every, tolerance)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	type taken struct {
		allowed bool
		aheadMS int64
	}
	byKey := make(map[string]taken, len(checks))
	for rows.Next() {
		var key string
		var t taken
		if err := rows.Scan(&key, &t.allowed, &t.aheadMS); err != nil {
			return nil, err
		}
		byKey[key] = t
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]RateResult, len(checks))
	for i, c := range checks {
		t := byKey[c.Key]
		out[i] = rateResult(c, t.allowed, t.aheadMS)
	}
	return out, nil
}

// ForgetRates deletes the buckets that are full again (their tat has passed): they hold no state.
func (s *Store) ForgetRates(ctx context.Context) (int64, error) {
	res, err := s.DB.ExecContext(ctx, `DELETE FROM rate_limits WHERE tat < now()`)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
