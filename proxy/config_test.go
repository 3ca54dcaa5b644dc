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
`, []User{{Name: "root", Host: "%", Password: "root", Databases: []string{"sharding_db"}}}, ""},
		{"database permitted, two users", cfgHead + `authority:
  users:
    - user: root@%
    - user: app@127.0.0.1
  privilege:
    type: DATABASE_PERMITTED
    props:
      user-database-mappings: "root@=*, app@127.0.0.1=sharding_db,app@127.0.0.1=other"
`, []User{{Name: "root", Host: "%", Databases: []string{"*"}}, {Name: "app", Host: "127.0.0.1", Databases: []string{"sharding_db", "other"}}}, ""},
		{"5.1 schema privileges", cfgHead + `  - !AUTHORITY
    users: ["root@%:root"]
    provider:
      type: SCHEMA_PRIVILEGES_PERMITTED
      props:
        user-schema-mappings: root@%=sharding_db
`, []User{{Name: "root", Host: "%", Password: "root", Databases: []string{"sharding_db"}}}, ""},
		{"database permitted without mappings", cfgHead + `authority:
  users:
    - user: root@%
  privilege:
    type: DATABASE_PERMITTED
`, nil, `c.yaml:25:11: authority.privilege: type DATABASE_PERMITTED needs props.user-database-mappings (e.g. "root@%=sharding_db, app@%=*")`},
		{"mapping of an unknown user", cfgHead + `authority:
  users:
    - user: root@%
  privilege:
    type: DATABASE_PERMITTED
    props:
      user-database-mappings: root@%=sharding_db, bob@%=sharding_db
`, nil, `c.yaml:27:31: authority.privilege: user-database-mappings names "bob@%", which is not a configured user`},
		{"bad mapping", cfgHead + `authority:
  users:
    - user: root@%
  privilege:
    type: DATABASE_PERMITTED
    props:
      user-database-mappings: root@%
`, nil, `c.yaml:27:31: authority.privilege: user-database-mappings entry "root@%" is not "user@host=database"`},
		{"unknown privilege type", cfgHead + `authority:
  users:
    - user: root@%
  privilege:
    type: EVERYTHING
`, nil, `c.yaml:25:11: authority.privilege: type "EVERYTHING" is not supported (supported: ALL_PERMITTED, DATABASE_PERMITTED, SCHEMA_PRIVILEGES_PERMITTED)`},
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
		{"env password", cfgHead + `authority:
  users:
    - user: root@%
      password: ${env:SHARDGEN_TEST_PROXY_PW}
    - user: app
      password: ${env:SHARDGEN_TEST_PROXY_UNSET:-fallback}
`, []User{{Name: "root", Host: "%", Password: "from-env"}, {Name: "app", Password: "fallback"}}, ""},
		{"env password unset", cfgHead + `authority:
  users:
    - user: root@%
      password: ${env:SHARDGEN_TEST_PROXY_UNSET}
`, nil, `c.yaml:23:7: authority: user "root@%": password: ${env:SHARDGEN_TEST_PROXY_UNSET}: environment variable "SHARDGEN_TEST_PROXY_UNSET" is not set and has no default`},
		{"empty name", cfgHead + `authority:
  users:
    - user: "@%"
`, nil, `c.yaml:23:7: authority: user "@%" has an empty name`},
	}
	t.Setenv("SHARDGEN_TEST_PROXY_PW", "from-env")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := ParseConfig("c.yaml", []byte(tt.yaml))
			if tt.err != "" {
				require.EqualError(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.users, cfg.Users)
			if tt.users != nil && tt.users[0].Databases != nil {
				require.Equal(t, PrivilegeDatabasePermitted, cfg.Privilege)
			} else {
				require.Equal(t, PrivilegeAllPermitted, cfg.Privilege)
			}
			require.Equal(t, "sharding_db", cfg.Rules.DatabaseName)
			require.Len(t, cfg.Deploy.DataSources, 1)
		})
	}
}
