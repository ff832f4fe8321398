// Package ingest turns the government's source files into the dataset's records. Fetch downloads
// the files that have an address into the raw directory and checks them against the manifest's
// hashes (sources.json); one parser per source reads a file into a Table of the code list's
// municipalities, each error naming the file, row and column; Build assembles the municipalities'
// figures, the meta document, the indicator catalogue (indicators.json) with every indicator's
// values in every survey year its sources carry, and the report of every null and why. Ranking
// them is package compute's work, writing them package dataset's.
package ingest
