// The connector stand-in of the node tests: a static program serving the connector's side of
// the platform's contract on $PORT, else $SERVER_PORT (the samples name one or the other), else
// 8080: the info endpoints the Core's callback asks for (/v2/info, /v1), the health endpoints the
// rendered probes use (/v2/health/liveness, /v2/health/readiness, /v2/health, /v1/health, the
// full sample's /health/liveness and /health/readiness) and a proxy's (/health, /ready). For the
// tests: GET /test/env (the environment the pod was given, as JSON), GET /test/file?path=P (a
// mounted file's content), POST /test/fail and /test/ok (health answers 500, then 200 again);
// STANDIN_EXIT_AT_START=1 exits at once (a crash loop), STANDIN_NEVER_READY=1 keeps readiness at
// 503. As an init container (first argument "init") it exits at once; as a sidecar ("idle") it
// waits for its stop. It writes nothing to its filesystem.
package main

import (
	"encoding/json"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
)

func answer(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "init" {
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "idle" {
		stop := make(chan os.Signal, 1)
		signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
		<-stop
		return
	}
	if os.Getenv("STANDIN_EXIT_AT_START") == "1" {
		os.Stderr.WriteString("connector stand-in: told to exit at start\n")
		os.Exit(3)
	}
	var failing atomic.Bool
	neverReady := os.Getenv("STANDIN_NEVER_READY") == "1"
	health := func(w http.ResponseWriter, _ *http.Request) {
		if failing.Load() {
			answer(w, 500, map[string]string{"status": "failing"})
			return
		}
		answer(w, 200, map[string]string{"status": "ok"})
	}
	ready := func(w http.ResponseWriter, r *http.Request) {
		if neverReady {
			answer(w, 503, map[string]string{"status": "not ready"})
			return
		}
		health(w, r)
	}
	interfaces := []map[string]string{}
	for _, code := range []string{"info", "health", "metrics", "compliance"} {
		interfaces = append(interfaces, map[string]string{"code": code, "version": "v2"})
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v2/info", func(w http.ResponseWriter, _ *http.Request) {
		answer(w, 200, map[string]any{"interfaces": interfaces})
	})
	mux.HandleFunc("GET /v1", func(w http.ResponseWriter, _ *http.Request) {
		answer(w, 200, []map[string]string{{"functionGroupCode": "complianceProvider", "kind": "x509"}})
	})
	for _, path := range []string{"/v2/health/liveness", "/v2/health", "/v1/health", "/health", "/health/liveness"} {
		mux.HandleFunc("GET "+path, health)
	}
	for _, path := range []string{"/v2/health/readiness", "/ready", "/health/readiness"} {
		mux.HandleFunc("GET "+path, ready)
	}
	mux.HandleFunc("GET /test/env", func(w http.ResponseWriter, _ *http.Request) {
		env := map[string]string{}
		for _, kv := range os.Environ() {
			k, v, _ := strings.Cut(kv, "=")
			env[k] = v
		}
		answer(w, 200, map[string]any{"env": env, "uid": os.Getuid(), "gid": os.Getgid()})
	})
	mux.HandleFunc("GET /test/file", func(w http.ResponseWriter, r *http.Request) {
		content, err := os.ReadFile(r.URL.Query().Get("path"))
		if err != nil {
			answer(w, 404, map[string]string{"error": err.Error()})
			return
		}
		answer(w, 200, map[string]string{"content": string(content)})
	})
	mux.HandleFunc("POST /test/fail", func(w http.ResponseWriter, _ *http.Request) { failing.Store(true); answer(w, 200, nil) })
	mux.HandleFunc("POST /test/ok", func(w http.ResponseWriter, _ *http.Request) { failing.Store(false); answer(w, 200, nil) })
	port := os.Getenv("PORT")
	if port == "" {
		port = os.Getenv("SERVER_PORT")
	}
	if port == "" {
		port = "8080"
	}
	if err := http.ListenAndServe(":"+port, mux); err != nil {
		os.Stderr.WriteString("connector stand-in: " + err.Error() + "\n")
		os.Exit(1)
	}
}
