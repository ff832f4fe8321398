// Command faceimages writes the two photos of the face benchmark (scripts/bench-face.sh) from the
// SCUT-FBP5500 portraits in ../shared, so that no image is kept in the repository: portrait.jpg, a
// 256×256 portrait as the dataset has it, and photo-1024.jpg, a one-face 1024×768 photo (a portrait
// enlarged to 300×300 on a grey background, as face's BenchmarkAnalyze builds its one-face-1024).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"image/jpeg"
	"log"
	"os"
	"path/filepath"

	"github.com/hensachi/hensachi/face"
)

func main() {
	scut := flag.String("scut", "../shared/datasets/scut-fbp5500/SCUT-FBP5500_v2/Images", "the SCUT-FBP5500 images")
	out := flag.String("out", ".", "the directory the photos are written to")
	flag.Parse()
	if err := write(*scut, *out); err != nil {
		log.Fatal(err)
	}
}

func write(scut, out string) error {
	portrait, err := os.ReadFile(filepath.Join(scut, "AF1.jpg"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "portrait.jpg"), portrait, 0o644); err != nil {
		return err
	}
	data, err := os.ReadFile(filepath.Join(scut, "CM4.jpg"))
	if err != nil {
		return err
	}
	subject, err := face.Decode(data)
	if err != nil {
		return fmt.Errorf("CM4.jpg: %w", err)
	}
	subject = face.Resize(subject, 300, 300)
	photo := &face.RGB{W: 1024, H: 768, Pix: bytes.Repeat([]byte{200}, 3*1024*768)}
	for r := range subject.H {
		copy(photo.Pix[3*((200+r)*photo.W+362):], subject.Pix[3*r*subject.W:3*(r+1)*subject.W])
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, photo.RGBA(), &jpeg.Options{Quality: 90}); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "photo-1024.jpg"), b.Bytes(), 0o644)
}
