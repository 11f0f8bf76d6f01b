package handlers

import (
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Request metrics, labelled by route pattern (never the raw path, which would explode cardinality).
var (
	httpRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "parley_http_requests_total", Help: "HTTP requests by method, route and status.",
	}, []string{"method", "route", "status"})
	httpDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "parley_http_request_duration_seconds", Help: "HTTP request latency by method and route.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
	}, []string{"method", "route"})
)

func init() {
	prometheus.MustRegister(httpRequests, httpDuration)
}

func metricsMiddleware() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			err := next(c)
			status := c.Response().Status
			if err != nil {
				if he, ok := err.(*echo.HTTPError); ok {
					status = he.Code
				} else if f := classify(err); f != nil {
					status = statusOf(f.Code)
				}
			}
			route := c.Path()
			if route == "" {
				route = "unmatched"
			}
			httpRequests.WithLabelValues(c.Request().Method, route, strconv.Itoa(status)).Inc()
			httpDuration.WithLabelValues(c.Request().Method, route).Observe(time.Since(start).Seconds())
			return err
		}
	}
}

func metricsHandler() echo.HandlerFunc {
	return echo.WrapHandler(promhttp.Handler())
}
