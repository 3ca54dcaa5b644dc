package proxy

import (
	"testing"

	"github.com/stretchr/testify/require"
)

const cfgHead = `databaseName: sharding_db
dataSources:
  ds_0:
    url: jdbc:mysql://127.0.0.1:13306/ds_0
    username: shardgen
    password: shardgen
rules:
  - !SHARDING
    tables:
      t_order:
        actualDataNodes: ds_0.t_order_${0..1}
        tableStrategy:
          standard:
            shardingColumn: order_id
            shardingAlgorithmName: t_mod
    shardingAlgorithms:
      t_mod:
        type: MOD
        props:
          sharding-count: 2
`

func TestParseConfigAuthority(t *testing.T) {
	tests := []struct {
		name  string
		yaml  string
		users []User
		err   string
	}{
		{"none", cfgHead, nil, ""},
		{"5.4 users", cfgHead + `authority:
  users:
    - user: root@%
      password: root
      admin: true
    - user: app@127.0.0.1
      password: s3cret
    - user: nopass
  privilege:
    type: ALL_PERMITTED
`, []User{{Name: "root", Host: "%", Password: "root"}, {Name: "app", Host: "127.0.0.1", Password: "s3cret"}, {Name: "nopass"}}, ""},
		{"5.1 list", cfgHead + `  - !AUTHORITY
    users:
      - root@%:root
      - sharding@:sharding
    provider:
      type: ALL_PRIVILEGES_PERMITTED
`, []User{{Name: "root", Host: "%", Password: "root"}, {Name: "sharding", Password: "sharding"}}, ""},
		{"5.1 list then props", cfgHead + `  - !AUTHORITY
    users: ["root@%:root"]
props:
  sql-show: true
`, []User{{Name: "root", Host: "%", Password: "root"}}, ""},
		{"5.1 bad entry", cfgHead + `  - !AUTHORITY
    users:
      - root
`, nil, `c.yaml:23:9: !AUTHORITY users: "root" is not "user@host:password"`},
		{"database permitted", cfgHead + `authority:
  users:
    - user: root@%
      password: root
  privilege:
    type: DATABASE_PERMITTED
    props:
      user-database-mappings: root@%=sharding_db
`, nil, `c.yaml:26:11: authority.privilege: type "DATABASE_PERMITTED" is not supported yet (supported: ALL_PERMITTED)`},
		{"duplicate user", cfgHead + `authority:
  users:
    - user: root@%
    - user: root@%
`, nil, `c.yaml:24:7: authority: user "root@%" is configured twice`},
		{"unknown key", cfgHead + `authority:
  users:
    - user: root@%
      pasword: x
`, nil, `c.yaml:24:7: authority.users: unknown key "pasword" (allowed: user, password, admin, authenticationMethodName)`},
		{"empty name", cfgHead + `authority:
  users:
    - user: "@%"
`, nil, `c.yaml:23:7: authority: user "@%" has an empty name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := ParseConfig("c.yaml", []byte(tt.yaml))
			if tt.err != "" {
				require.EqualError(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.users, cfg.Users)
			require.Equal(t, PrivilegeAllPermitted, cfg.Privilege)
			require.Equal(t, "sharding_db", cfg.Rules.DatabaseName)
			require.Len(t, cfg.Deploy.DataSources, 1)
		})
	}
}
