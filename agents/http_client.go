package agents

import "net/http"

// streamClient is the HTTP client providers use when Config.HTTPClient is nil (the SDKs' default
// is http.DefaultClient): http.DefaultTransport's settings (proxy from the environment, dial and
// TLS timeouts, HTTP/2) with a 64 KiB read buffer instead of 4 KiB, so the thousands of small
// chunks of a fast local model cost one read call per 64 KiB rather than one per 4 KiB.
var streamClient = &http.Client{Transport: func() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ReadBufferSize = 64 << 10
	return t
}()}

// httpClient is cfg's client, or streamClient.
func httpClient(cfg Config) *http.Client {
	if cfg.HTTPClient != nil {
		return cfg.HTTPClient
	}
	return streamClient
}
