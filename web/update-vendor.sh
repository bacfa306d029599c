#!/usr/bin/env bash
# Refresh web/vendor/ (the committed bundle the build embeds) from npm:
# `npm ci` against the committed package-lock.json, then the library's
# built files and licence copied out. The build itself never needs npm.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund
cp node_modules/uplot/dist/uPlot.iife.min.js node_modules/uplot/dist/uPlot.min.css vendor/
cp node_modules/uplot/LICENSE vendor/uPlot.LICENSE
echo "vendor/ now holds uPlot $(node -p 'require("./node_modules/uplot/package.json").version')"
