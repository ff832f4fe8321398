// Package apiclient is the Go client that oapi-codegen generates from serve/openapi.json. The
// project does not use it to serve anything: its tests keep the document usable by generated
// clients (TestUpToDate here, and serve's test that runs every operation against a live server).
package apiclient

//go:generate go tool oapi-codegen -config config.yaml -o client.gen.go ../../../serve/openapi.json
