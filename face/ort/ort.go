// Package ort starts ONNX Runtime for github.com/yalue/onnxruntime_go. The binding keeps one
// environment per process, so every user (the face pipeline, the converter's tests) goes through
// Init instead of calling InitializeEnvironment itself.
package ort

import (
	"fmt"
	"os"
	"sync"

	onnxruntime "github.com/yalue/onnxruntime_go"
)

// DefaultLib is where `make runtime` puts the library, relative to the module root.
const DefaultLib = "build/onnxruntime/libonnxruntime.so.1"

var (
	mu     sync.Mutex
	loaded string
)

// Init loads the ONNX Runtime shared library at libPath and creates the environment; later calls
// with the same path do nothing. A process holds one library, so a different path later is an error.
func Init(libPath string) error {
	mu.Lock()
	defer mu.Unlock()
	if loaded != "" {
		if libPath != loaded {
			return fmt.Errorf("onnxruntime: already initialised with %s, cannot switch to %s", loaded, libPath)
		}
		return nil
	}
	if _, err := os.Stat(libPath); err != nil {
		return fmt.Errorf("onnxruntime: shared library %s is missing (run `make runtime`, which writes %s): %w", libPath, DefaultLib, err)
	}
	onnxruntime.SetSharedLibraryPath(libPath)
	if err := onnxruntime.InitializeEnvironment(); err != nil {
		return fmt.Errorf("onnxruntime: initialise with %s: %w", libPath, err)
	}
	loaded = libPath
	return nil
}
