// Reads a Parquet file with hyparquet (a second reader, independent of arrow-go) and prints its
// rows as JSON arrays: every value as a string in the CSV export's form, null as null.
import { readFileSync } from 'node:fs'
import { parquetMetadata, parquetReadObjects } from 'hyparquet'

const bytes = readFileSync(process.argv[2])
const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
const columns = parquetMetadata(file).schema.slice(1).map(s => s.name)
const rows = await parquetReadObjects({ file })
const cell = v => (v === null || v === undefined ? null : String(v))
process.stdout.write(JSON.stringify([columns, ...rows.map(r => columns.map(c => cell(r[c])))]))
