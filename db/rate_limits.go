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

// TakeRates takes one request from each check's bucket, as the generic cell rate algorithm
// (GCRA) does: a token bucket of Burst that refills one token every Every, shared by every
// instance on the database. A denied request takes nothing. One statement whatever the number of
// checks; results are in the checks' order. Keys must be distinct.
func (s *Store) TakeRates(ctx context.Context, checks ...RateCheck) ([]RateResult, error) {
	keys := make([]string, len(checks))
	every := make([]int64, len(checks))
	tolerance := make([]int64, len(checks))
	for i, c := range checks {
		keys[i], every[i], tolerance[i] = c.Key, c.Every.Microseconds(), c.Every.Microseconds()*int64(max(c.Burst, 1))
	}
	// EXCLUDED.tat - now() is the check's interval; every SET expression reads the old row (r).
	rows, err := s.hotQuery(ctx, `
		INSERT INTO rate_limits AS r (key, tat, tolerance, allowed)
		SELECT k, now() + e * interval '1 microsecond', t * interval '1 microsecond', true
		FROM unnest($1::text[], $2::int8[], $3::int8[]) AS c(k, e, t)
		ON CONFLICT (key) DO UPDATE SET
			allowed = greatest(r.tat, now()) + (EXCLUDED.tat - now()) <= now() + EXCLUDED.tolerance,
			tat = CASE WHEN greatest(r.tat, now()) + (EXCLUDED.tat - now()) <= now() + EXCLUDED.tolerance
				THEN greatest(r.tat, now()) + (EXCLUDED.tat - now()) ELSE r.tat END,
			tolerance = EXCLUDED.tolerance
		RETURNING key, allowed, ceil(extract(epoch FROM tat - now()) * 1000)::int8`,
		pq.Array(keys), pq.Array(every), pq.Array(tolerance))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	byKey := make(map[string]RateResult, len(checks))
	for rows.Next() {
		var key string
		var allowed bool
		var aheadMS int64 // how far tat runs ahead of now
		if err := rows.Scan(&key, &allowed, &aheadMS); err != nil {
			return nil, err
		}
		byKey[key] = RateResult{Allowed: allowed, Wait: time.Duration(aheadMS) * time.Millisecond}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]RateResult, len(checks))
	for i, c := range checks {
		r := byKey[c.Key]
		if r.Allowed {
			r.Wait = 0
		} else {
			// the next request fits once tat + Every ≤ now + Burst × Every
			r.Wait = max(r.Wait+c.Every-c.Every*time.Duration(max(c.Burst, 1)), time.Millisecond)
		}
		out[i] = r
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
