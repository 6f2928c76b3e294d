/**
 * Writes config.schema.json, the JSON Schema of the config file, from the Effect Schema.
 * A test fails when the committed file is not what this writes: run `npm run schema` then.
 */
import { writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { ConfigFile } from "../src/index.js"

const target = fileURLToPath(new URL("../config.schema.json", import.meta.url))
writeFileSync(target, `${JSON.stringify(ConfigFile.jsonSchema(), null, 2)}\n`)
process.stdout.write(`wrote ${target}\n`)
