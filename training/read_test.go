package training

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hensachi/hensachi/face"
	"github.com/hensachi/hensachi/training/spoil"
)

func TestReadUTKFace(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) {
		if err := os.WriteFile(filepath.Join(dir, "labels.csv"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("file,age,gender,race\n26_1_2_20170116174525125.jpg.chip.jpg,26,female,2\n26_0_0_20170116174533125.jpg.chip.jpg,26,male,0\n")
	s, err := ReadUTKFace(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != 2 || s[0].Age != 26 || s[0].Male || s[0].Ethnic != "Asian" || s[1].Ethnic != "White" || !s[1].Male {
		t.Errorf("samples %+v", s)
	}
	// one ten-minute window: both on the same side of the split
	if s[0].Group != "20170116174" || s[0].Group != s[1].Group || s[0].HeldOut != s[1].HeldOut {
		t.Errorf("groups %q %q, held out %v %v", s[0].Group, s[1].Group, s[0].HeldOut, s[1].HeldOut)
	}
	for _, bad := range []string{
		"f,age,gender,race\nx_1_1_2017.jpg,1,female,0\n",                  // no time stamp
		"file,age,gender,race\n1_1_1_20170116174525125.jpg,1,other,0\n",   // gender
		"file,age,gender,race\n1_1_1_20170116174525125.jpg,-1,female,0\n", // age
		"file,age,gender,race\n1_1_1_20170116174525125.jpg,1,female,7\n",  // race
		"file,age,gender,race\n1_1_1_20170116174525125.jpg,1,female\n",    // columns
	} {
		write(bad)
		if _, err := ReadUTKFace(dir); err == nil {
			t.Errorf("no error for %q", bad)
		}
	}
}

// TestHeldOutShare checks the split's size on many synthetic windows.
func TestHeldOutShare(t *testing.T) {
	n := 0
	for i := range 10000 {
		if Bucket("", string(rune(i))+"window", heldOutShare) == 0 {
			n++
		}
	}
	if n < 1800 || n > 2200 {
		t.Errorf("%d of 10000 groups held out, want about 2000", n)
	}
}

// TestDegrade: the copy keeps the size, loses the fine detail, and is drawn from the file's name
// alone (the same on every machine, whatever directory the dataset is in).
func TestDegrade(t *testing.T) {
	img := &face.RGB{W: 120, H: 90, Pix: make([]uint8, 3*120*90)}
	for y := range img.H {
		for x := range img.W {
			if (x+y)%2 == 0 { // a one-pixel checkerboard: all detail, no content
				copy(img.Pix[3*(y*img.W+x):], []uint8{255, 255, 255})
			}
		}
	}
	a, err := Degrade(img, "/data/one/5_1_0_20170109.jpg")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Degrade(img, "elsewhere/5_1_0_20170109.jpg")
	if err != nil {
		t.Fatal(err)
	}
	if a.W != img.W || a.H != img.H || !slices.Equal(a.Pix, b.Pix) {
		t.Fatalf("copies %d×%d and %d×%d differ, or differ in size from %d×%d", a.W, a.H, b.W, b.H, img.W, img.H)
	}
	contrast := func(m *face.RGB) float64 {
		sum := 0.0
		for i := 3; i < len(m.Pix); i += 3 {
			sum += math.Abs(float64(m.Pix[i]) - float64(m.Pix[i-3]))
		}
		return sum / float64(len(m.Pix)/3)
	}
	if before, after := contrast(img), contrast(a); after > before/10 {
		t.Errorf("neighbour contrast %.1f after degrading, %.1f before: the detail is still there", after, before)
	}
}

func TestReadSplit(t *testing.T) {
	dir := t.TempDir()
	lists := filepath.Join(dir, scutSplit)
	if err := os.MkdirAll(lists, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(lists, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("train.txt", "AF1.jpg 2.71\n\nCM12.jpg 3.5\n")
	write("test.txt", "AM7.jpg 1.2\n")
	train, test, err := ReadSplit(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(train) != 2 || len(test) != 1 {
		t.Fatalf("%d training and %d test samples, want 2 and 1", len(train), len(test))
	}
	if s := train[1]; s.Group != "CM12.jpg" || !s.Male || s.Ethnic != "Caucasian" || s.Rating != 3.5 || s.HeldOut ||
		s.Path != ImagePath(dir, "CM12.jpg") || s.Source != SourceSCUT {
		t.Errorf("training sample %+v", s)
	}
	if s := test[0]; !s.HeldOut || !s.Male || s.Ethnic != "Asian" || s.Rating != 1.2 {
		t.Errorf("test sample %+v", s)
	}
	if all, err := ReadSCUT(dir); err != nil || len(all) != 3 || all[2].Group != "AM7.jpg" {
		t.Errorf("ReadSCUT: %d samples, %v; want the training part, then the test part", len(all), err)
	}
	for _, bad := range []string{"AF1.jpg\n", "AF1.jpg 6\n", "XF1.jpg 2\n", "AX1.jpg 2\n"} {
		write("test.txt", bad)
		if _, _, err := ReadSplit(dir); err == nil {
			t.Errorf("no error for %q", bad)
		}
	}
}

// TestHardCopies: each sample gets one copy, labels and split kept, its kind drawn by the file's
// name alone, every kind for about a sixth of the samples.
func TestHardCopies(t *testing.T) {
	var samples []Sample
	for i := range 1200 {
		samples = append(samples, Sample{Path: fmt.Sprintf("/data/%d_1_0_2017010%d.jpg", i%90, i), Age: i % 90, HeldOut: i%5 == 0})
	}
	copies := HardCopies(samples)
	moved := HardCopies([]Sample{{Path: "elsewhere/" + filepath.Base(samples[7].Path)}})
	if moved[0].Hard != copies[7].Hard {
		t.Errorf("the kind depends on the directory: %s, %s", moved[0].Hard, copies[7].Hard)
	}
	count := map[spoil.Kind]int{}
	for i, c := range copies {
		if c.Path != samples[i].Path || c.Age != samples[i].Age || c.HeldOut != samples[i].HeldOut || c.Degraded {
			t.Fatalf("copy %d %+v of %+v", i, c, samples[i])
		}
		count[c.Hard]++
	}
	for _, k := range spoil.Kinds {
		if n := count[k]; n < 150 || n > 250 {
			t.Errorf("%s: %d of 1200 copies, want about 200", k, n)
		}
	}
}
