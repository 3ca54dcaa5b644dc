module github.com/shardgen/shardgen

go 1.26.8

require (
	filippo.io/edwards25519 v1.2.0 // indirect
	github.com/dave/jennifer v1.7.1 // indirect
	github.com/go-sql-driver/mysql v1.10.1 // indirect
	github.com/spf13/pflag v1.0.10 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/tools v0.52.0 // indirect
	vitess.io/vitess v0.24.4 // indirect
)
