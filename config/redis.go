package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/redis/go-redis/v9"
)

// RedisTarget is what LEARNGATE_REDIS_URL names: one server (Single) or a
// Redis Cluster (Cluster); exactly one of the two is set.
type RedisTarget struct {
	Single  *redis.Options
	Cluster *redis.ClusterOptions
}

// redisURLForms is the error shown for a LEARNGATE_REDIS_URL of no
// accepted form.
const redisURLForms = "LEARNGATE_REDIS_URL must be redis://, rediss://, unix://<socket path>, " +
	"redis+cluster://host:port,host:port,... or rediss+cluster://host:port,..."

// ParseRedisURL reads a LEARNGATE_REDIS_URL (docs/configuration.md):
//
//	redis://[user:password@]host[:port][/db][?options]     one server
//	rediss://...                                            one server over TLS
//	unix://[user:password@]/path/to/redis.sock[?db=N]       one server on a Unix socket
//	redis+cluster://[user:password@]host:port,host:port,...[?options]   a Redis Cluster
//	rediss+cluster://...                                    a Redis Cluster over TLS
//
// The cluster form lists seed nodes (any of the cluster's nodes; the
// client learns the others); a cluster has only database 0. Options are
// go-redis's query parameters (dial_timeout=..., and so on).
func ParseRedisURL(raw string) (RedisTarget, error) {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return RedisTarget{}, errors.New(redisURLForms)
	}
	switch scheme {
	case "redis", "rediss", "unix":
		opts, err := redis.ParseURL(raw)
		if err != nil {
			return RedisTarget{}, fmt.Errorf("LEARNGATE_REDIS_URL is not valid: %w", err)
		}
		return RedisTarget{Single: opts}, nil
	case "redis+cluster", "rediss+cluster":
		opts, err := parseClusterURL(strings.TrimSuffix(scheme, "+cluster"), rest)
		if err != nil {
			return RedisTarget{}, fmt.Errorf("LEARNGATE_REDIS_URL is not valid: %w", err)
		}
		return RedisTarget{Cluster: opts}, nil
	}
	return RedisTarget{}, errors.New(redisURLForms)
}

// parseClusterURL reads the part after "redis+cluster://" into the form
// go-redis's ParseClusterURL takes: the first node as the URL's host and
// the others as addr parameters.
func parseClusterURL(scheme, rest string) (*redis.ClusterOptions, error) {
	authority, tail := rest, ""
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		authority, tail = rest[:i], rest[i:]
	}
	userinfo, hosts := "", authority
	if i := strings.LastIndex(authority, "@"); i >= 0 {
		userinfo, hosts = authority[:i+1], authority[i+1:]
	}
	path, query, _ := strings.Cut(tail, "?")
	if path != "" && path != "/" && path != "/0" {
		return nil, fmt.Errorf("a Redis Cluster has only database 0, got %q", path)
	}
	var addrs []string
	for _, h := range strings.Split(hosts, ",") {
		if h = strings.TrimSpace(h); h == "" {
			continue
		}
		if _, port, err := net.SplitHostPort(h); err != nil || port == "" {
			return nil, fmt.Errorf("cluster node %q must be host:port", h)
		}
		addrs = append(addrs, h)
	}
	if len(addrs) == 0 {
		return nil, errors.New("the cluster form needs at least one host:port")
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return nil, err
	}
	if len(q["addr"]) > 0 {
		return nil, errors.New("list the cluster's nodes in the host part, not as addr parameters")
	}
	for _, a := range addrs[1:] {
		q.Add("addr", a)
	}
	u := scheme + "://" + userinfo + addrs[0]
	if enc := q.Encode(); enc != "" {
		u += "?" + enc
	}
	return redis.ParseClusterURL(u)
}
