#!/usr/bin/env bash
# Install the headless browser the app's browser test drives (Debian's chromium, used through
# Playwright with executable_path=/usr/bin/chromium; no browser download). Idempotent.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  echo "chromium is installed: $(/usr/bin/chromium --version 2>/dev/null || echo /usr/bin/chromium)"
  exit 0
fi
command -v apt-get >/dev/null || { echo "no apt-get here: install chromium as /usr/bin/chromium" >&2; exit 1; }
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
# The emoji font only makes the screenshots look right; chromium alone is what the test needs.
$sudo apt-get install -y -q chromium fonts-noto-color-emoji || $sudo apt-get install -y -q chromium
/usr/bin/chromium --version
