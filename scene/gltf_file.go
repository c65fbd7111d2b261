package scene

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/qmuntal/gltf"
)

// The GLB container: a 12-byte header, a JSON chunk, an optional BIN chunk.
const (
	glbMagic     = 0x46546C67 // "glTF"
	glbChunkJSON = 0x4E4F534A
	glbChunkBIN  = 0x004E4942
)

// maxResourceBytes bounds one image file that a scene refers to (buffers
// are bounded by their byteLength).
const maxResourceBytes = 2 << 30

// parseDocument reads a .gltf (JSON) or .glb file's bytes into a document and
// the GLB's BIN chunk (nil for JSON files).
func parseDocument(data []byte) (*gltf.Document, []byte, error) {
	jsonData, bin := data, []byte(nil)
	if len(data) >= 4 && binary.LittleEndian.Uint32(data) == glbMagic {
		var err error
		if jsonData, bin, err = splitGLB(data); err != nil {
			return nil, nil, err
		}
	} else if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil, errors.New("file is empty")
	} else if t := bytes.TrimSpace(data); t[0] != '{' {
		return nil, nil, errors.New("neither glTF JSON nor a GLB file")
	}
	doc := new(gltf.Document)
	if err := json.Unmarshal(jsonData, doc); err != nil {
		return nil, nil, fmt.Errorf("invalid glTF JSON: %s", strings.TrimPrefix(err.Error(), "gltf: "))
	}
	if !strings.HasPrefix(doc.Asset.Version, "2.") {
		return nil, nil, fmt.Errorf("glTF version %q is not supported (only 2.x)", doc.Asset.Version)
	}
	return doc, bin, nil
}

func splitGLB(data []byte) (jsonChunk, bin []byte, err error) {
	if len(data) < 20 {
		return nil, nil, errors.New("GLB file is truncated (no JSON chunk)")
	}
	if v := binary.LittleEndian.Uint32(data[4:]); v != 2 {
		return nil, nil, fmt.Errorf("GLB version %d is not supported (only 2)", v)
	}
	total := uint64(binary.LittleEndian.Uint32(data[8:]))
	if total > uint64(len(data)) {
		return nil, nil, fmt.Errorf("GLB file is truncated: header says %d bytes, file has %d", total, len(data))
	}
	data = data[:total]
	off := uint64(12)
	for i := 0; off+8 <= total; i++ {
		length := uint64(binary.LittleEndian.Uint32(data[off:]))
		kind := binary.LittleEndian.Uint32(data[off+4:])
		off += 8
		if length > total-off {
			return nil, nil, fmt.Errorf("GLB chunk %d is truncated: %d bytes declared, %d left", i, length, total-off)
		}
		chunk := data[off : off+length]
		off += length
		switch {
		case i == 0 && kind != glbChunkJSON:
			return nil, nil, errors.New("GLB's first chunk is not JSON")
		case i == 0:
			jsonChunk = chunk
		case i == 1 && kind == glbChunkBIN:
			bin = chunk
		}
	}
	if jsonChunk == nil {
		return nil, nil, errors.New("GLB file has no JSON chunk")
	}
	return jsonChunk, bin, nil
}

// ResourceReader reads a file that a scene refers to by a relative URI,
// reading at most limit bytes. It must refuse names outside the scene's folder.
type ResourceReader func(name string, limit int64) ([]byte, error)

// DirResources reads resources from an os.Root's FS, so that neither "../"
// nor a symbolic link can reach outside the scene's folder.
func DirResources(root fs.FS) ResourceReader {
	return func(name string, limit int64) ([]byte, error) {
		// Stat before opening: opening a named pipe would block.
		st, err := fs.Stat(root, name)
		if err != nil {
			return nil, err
		}
		if !st.Mode().IsRegular() {
			return nil, fmt.Errorf("%s is not a regular file", name)
		}
		f, err := root.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return io.ReadAll(io.LimitReader(f, limit))
	}
}

// NoResources is for scenes that must be self-contained (fuzzing, stdin).
func NoResources(name string, _ int64) ([]byte, error) {
	return nil, fmt.Errorf("%s: external files are not available here", name)
}

// readURI returns the bytes behind a buffer or image URI: a data: URI or a
// file beside the scene.
func readURI(uri string, limit int64, read ResourceReader) ([]byte, error) {
	if rest, ok := strings.CutPrefix(uri, "data:"); ok {
		meta, payload, ok := strings.Cut(rest, ",")
		if !ok || !strings.HasSuffix(meta, ";base64") {
			return nil, errors.New("data URI is not base64")
		}
		b, err := base64.StdEncoding.DecodeString(payload)
		if err != nil {
			return nil, fmt.Errorf("data URI: %v", err)
		}
		return b, nil
	}
	if u, err := url.Parse(uri); err == nil && u.Scheme != "" && len(u.Scheme) > 1 {
		return nil, fmt.Errorf("uri %q: only files beside the scene and data: URIs are read", uri)
	}
	name, err := url.PathUnescape(strings.ReplaceAll(uri, "\\", "/"))
	if err != nil {
		return nil, fmt.Errorf("uri %q: %v", uri, err)
	}
	if name == "" || filepath.IsAbs(name) || strings.HasPrefix(name, "/") || !filepath.IsLocal(filepath.FromSlash(name)) {
		return nil, fmt.Errorf("uri %q points outside the scene's folder", uri)
	}
	b, err := read(filepath.FromSlash(filepath.Clean(name)), limit)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("uri %q: file not found beside the scene", uri)
	}
	if err != nil {
		return nil, fmt.Errorf("uri %q: %v", uri, err)
	}
	return b, nil
}

// loadBuffers returns each buffer's bytes, exactly byteLength long.
func loadBuffers(doc *gltf.Document, bin []byte, read ResourceReader) ([][]byte, error) {
	out := make([][]byte, len(doc.Buffers))
	for i, b := range doc.Buffers {
		if b.ByteLength < 1 {
			return nil, fmt.Errorf("buffer %d: byteLength %d must be at least 1", i, b.ByteLength)
		}
		var data []byte
		switch {
		case b.URI == "" && i == 0 && bin != nil:
			data = bin
		case b.URI == "":
			return nil, fmt.Errorf("buffer %d has no uri and is not the GLB's BIN chunk", i)
		default:
			var err error
			if data, err = readURI(b.URI, int64(b.ByteLength), read); err != nil {
				return nil, fmt.Errorf("buffer %d: %w", i, err)
			}
		}
		if len(data) < b.ByteLength {
			return nil, fmt.Errorf("buffer %d: byteLength is %d but only %d bytes are there", i, b.ByteLength, len(data))
		}
		out[i] = data[:b.ByteLength:b.ByteLength]
	}
	return out, nil
}

// Resources lists the files a glTF scene refers to (buffers and images
// stored beside it, not data: URIs), as paths relative to its folder: what
// a scene's content is, for hashing.
func Resources(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	doc, _, err := parseDocument(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var uris []string
	for _, b := range doc.Buffers {
		uris = append(uris, b.URI)
	}
	for _, im := range doc.Images {
		uris = append(uris, im.URI)
	}
	var out []string
	for _, u := range uris {
		if u == "" || strings.HasPrefix(u, "data:") {
			continue
		}
		if name, err := url.PathUnescape(strings.ReplaceAll(u, "\\", "/")); err == nil && filepath.IsLocal(filepath.FromSlash(name)) {
			out = append(out, filepath.FromSlash(filepath.Clean(name)))
		}
	}
	return out, nil
}

// ContentHash hashes what a render of the scene at path reads: the bytes
// of the scene, of the buffers and images it refers to (named relative to
// its folder, so that a copy elsewhere hashes alike) and of the extra
// files given (an environment map). A file that cannot be read hashes as
// missing: loading it will say what is wrong.
func ContentHash(path string, extra ...string) (string, error) {
	resources, err := Resources(path)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	hashFile := func(name, file string) {
		data, err := os.ReadFile(file)
		if err != nil {
			fmt.Fprintf(h, "%s missing\n", name)
			return
		}
		fmt.Fprintf(h, "%s %d\n", name, len(data))
		h.Write(data)
	}
	hashFile("scene", path)
	for _, res := range resources {
		hashFile(filepath.ToSlash(res), filepath.Join(filepath.Dir(path), res))
	}
	for i, f := range extra {
		hashFile(fmt.Sprintf("extra %d", i), f)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
