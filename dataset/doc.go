// Package dataset is the dataset file: one Arrow IPC file of every municipality's figures and ranks
// and the meta document (its layout is described in write.go). Write writes it atomically; Open
// maps it read-only and checks it in full before any value is read; a Holder serves the current
// file and swaps in a new one, while requests in flight finish on the old mapping.
package dataset
