// Validates an OpenAPI document with swagger-parser (schema and $ref checks), as `make lint` runs it:
//   node scripts/validate-openapi.mjs handlers/openapi.json
import SwaggerParser from "@apidevtools/swagger-parser";

const file = process.argv[2];
try {
  await SwaggerParser.validate(file);
  console.log(`${file}: valid (swagger-parser)`);
} catch (err) {
  console.error(`${file}: ${err.message}`);
  process.exit(1);
}
