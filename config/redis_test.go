package config_test

import (
	"reflect"
	"testing"
	"time"

	"learngate/config"
)

func TestParseRedisURL(t *testing.T) {
	t.Run("one server", func(t *testing.T) {
		got, err := config.ParseRedisURL("redis://u:pw@cache:6380/2")
		if err != nil || got.Cluster != nil || got.Single == nil {
			t.Fatalf("got %+v, %v", got, err)
		}
		if o := got.Single; o.Network != "tcp" || o.Addr != "cache:6380" || o.DB != 2 || o.Username != "u" || o.Password != "pw" || o.TLSConfig != nil {
			t.Fatalf("options %+v", o)
		}
	})
	t.Run("one server over tls", func(t *testing.T) {
		got, err := config.ParseRedisURL("rediss://cache:6380")
		if err != nil || got.Single == nil || got.Single.TLSConfig == nil || got.Single.TLSConfig.ServerName != "cache" {
			t.Fatalf("got %+v, %v", got, err)
		}
	})
	t.Run("unix socket", func(t *testing.T) {
		got, err := config.ParseRedisURL("unix:///run/redis/redis.sock?db=3")
		if err != nil || got.Single == nil {
			t.Fatalf("got %+v, %v", got, err)
		}
		if o := got.Single; o.Network != "unix" || o.Addr != "/run/redis/redis.sock" || o.DB != 3 {
			t.Fatalf("options %+v", o)
		}
	})
	t.Run("cluster", func(t *testing.T) {
		got, err := config.ParseRedisURL("redis+cluster://u:pw@10.0.0.1:7000,10.0.0.2:7001, 10.0.0.3:7002/?dial_timeout=2s")
		if err != nil || got.Single != nil || got.Cluster == nil {
			t.Fatalf("got %+v, %v", got, err)
		}
		o := got.Cluster
		if want := []string{"10.0.0.1:7000", "10.0.0.2:7001", "10.0.0.3:7002"}; !reflect.DeepEqual(o.Addrs, want) {
			t.Fatalf("addrs %v, want %v", o.Addrs, want)
		}
		if o.Username != "u" || o.Password != "pw" || o.DialTimeout != 2*time.Second || o.TLSConfig != nil {
			t.Fatalf("options %+v", o)
		}
	})
	t.Run("cluster over tls", func(t *testing.T) {
		got, err := config.ParseRedisURL("rediss+cluster://r1.example.com:7000,r2.example.com:7000")
		if err != nil || got.Cluster == nil || got.Cluster.TLSConfig == nil || len(got.Cluster.Addrs) != 2 {
			t.Fatalf("got %+v, %v", got, err)
		}
	})
}
