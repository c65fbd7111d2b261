// ref.mjs: reference decodes of KTX2 textures made with the official Basis
// Universal transcoder (the WebAssembly build shipped in the npm package
// "three", examples/jsm/libs/basis/).
//
// Usage: node ref.mjs <basis dir> <out dir> file.ktx2...
//
// For every file it writes <out dir>/<basename>.L0.rgba: level 0 transcoded
// to RGBA32 (cTFRGBA32), raw RGBA8 rows top to bottom as stored in the file.
// It also writes <out dir>/index.json listing {file, width, height, sha256}
// and <out dir>/transcoder.json saying which transcoder build made them.
// The transcoder has no version call, so the build is identified by the npm
// package version (read from the package.json four folders above the basis
// folder, when it is there) and the sha256 of the .js and .wasm.
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { basename, join, resolve } from 'node:path';
import vm from 'node:vm';

const TF_RGBA32 = 13; // basist::transcoder_texture_format::cTFRGBA32

const [basisDir, outDir, ...files] = process.argv.slice(2);
if (!basisDir || !outDir || files.length === 0) {
	console.error('usage: node ref.mjs <basis dir> <out dir> file.ktx2...');
	process.exit(2);
}

// basis_transcoder.js is an Emscripten factory written for CommonJS/AMD/a
// global; run it in a CommonJS-style wrapper so it works whatever package.json
// (if any) sits beside it, and hand it the wasm bytes directly.
const jsPath = resolve(basisDir, 'basis_transcoder.js');
const wrapper = vm.runInThisContext(
	'(function (module, exports, require, __filename, __dirname) {' +
		readFileSync(jsPath, 'utf8') + '\n})', { filename: jsPath });
const mod = { exports: {} };
wrapper(mod, mod.exports, createRequire(jsPath), jsPath, basisDir);
const BASIS = mod.exports;
const wasm = readFileSync(join(basisDir, 'basis_transcoder.wasm'));
const basis = await BASIS({ wasmBinary: wasm });
basis.initializeBasis();

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');
const pkgPath = resolve(basisDir, '../../../../package.json');
const pkg = existsSync(pkgPath) ? JSON.parse(readFileSync(pkgPath, 'utf8')) : null;
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, 'transcoder.json'), JSON.stringify({
	npmPackage: pkg ? `${pkg.name}@${pkg.version}` : null,
	transcoderVersion: null, // not exposed by this build
	jsSha256: sha256(readFileSync(jsPath)),
	wasmSha256: sha256(wasm),
}, null, 1) + '\n');
const index = [];
for (const path of files) {
	const ktx2 = new basis.KTX2File(new Uint8Array(readFileSync(path)));
	try {
		if (!ktx2.isValid()) throw new Error(`${path}: not a valid KTX2 file`);
		if (!ktx2.startTranscoding()) throw new Error(`${path}: startTranscoding failed`);
		const width = ktx2.getWidth(), height = ktx2.getHeight();
		const size = ktx2.getImageTranscodedSizeInBytes(0, 0, 0, TF_RGBA32);
		const rgba = new Uint8Array(size);
		// level 0, layer 0, face 0; no decode flags; default row pitch and rows.
		if (!ktx2.transcodeImage(rgba, 0, 0, 0, TF_RGBA32, 0, -1, -1)) {
			throw new Error(`${path}: transcodeImage failed`);
		}
		const name = basename(path, '.ktx2');
		writeFileSync(join(outDir, `${name}.L0.rgba`), rgba);
		const digest = sha256(rgba);
		index.push({
			file: basename(path), width, height, sha256: digest,
			format: ktx2.isUASTC() ? 'UASTC' : 'ETC1S',
		});
		console.log(`${basename(path)} ${width}x${height} ${digest}`);
	} finally {
		ktx2.close();
		ktx2.delete();
	}
}
writeFileSync(join(outDir, 'index.json'), JSON.stringify(index, null, 1) + '\n');
