// Reads a GeoJSON file with readers independent of package geojsonfile: check-geojson for RFC 7946's
// structure, boolean-clockwise for the winding of every ring. Prints one JSON object: the
// structural issues, the rule broken by any feature (an id missing, repeated or not the code
// property, a geometry other than a MultiPolygon, a ring open or too short, an outer ring clockwise, a hole counter-clockwise), the
// attribution, and the rows of properties, every value as a string in the CSV export's form, null
// as null, after a row of the property names.
import { readFileSync } from 'node:fs'
import { getIssues } from '@placemarkio/check-geojson'
import { booleanClockwise } from '@turf/boolean-clockwise'

const text = readFileSync(process.argv[2], 'utf8')
const issues = getIssues(text).map(i => i.message)
const fc = JSON.parse(text)
const broken = []
const seen = new Set()
let rings = 0
for (const f of fc.features) {
  if (typeof f.id !== 'string' || seen.has(f.id) || f.properties.code !== f.id) {
    broken.push(`feature ${JSON.stringify(f.id)}: id missing, repeated or not its code`)
  }
  seen.add(f.id)
  if (f.geometry === null) continue
  if (f.geometry.type !== 'MultiPolygon') {
    broken.push(`${f.id}: a ${f.geometry.type}, not a MultiPolygon`)
    continue
  }
  for (const polygon of f.geometry.coordinates) {
    polygon.forEach((ring, k) => {
      rings++
      const [first, last] = [ring[0], ring[ring.length - 1]]
      if (ring.length < 4 || first[0] !== last[0] || first[1] !== last[1]) {
        broken.push(`${f.id}: ring ${k} open or shorter than four positions`)
      } else if (booleanClockwise(ring) !== (k > 0)) {
        broken.push(`${f.id}: ring ${k} ${k === 0 ? 'outer and clockwise' : 'a hole and counter-clockwise'}`)
      }
    })
  }
}
const names = Object.keys(fc.features[0]?.properties ?? {})
const cell = v => (v === null || v === undefined ? null : String(v))
process.stdout.write(JSON.stringify({
  issues,
  broken,
  rings,
  attribution: fc.attribution,
  rows: [names, ...fc.features.map(f => names.map(n => cell(f.properties[n])))],
}))
