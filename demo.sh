#!/usr/bin/env bash
# The ddbguard walk-through over HTTP: every route, with curl, against a running `make run`.
#
#   ./demo.sh [BASE_URL] [TOKEN]        defaults: $BASE_URL or http://127.0.0.1:${PORT:-3000}, $TOKEN
#   export TOKEN=$(make -s token) && ./demo.sh
#
# It makes its own accounts (unique values per run), so it can run any number of times. Each
# step prints the request, the status and the start of the body, and stops the script when the
# status is not the expected one. Needs curl and python3 (to read JSON fields).
set -euo pipefail

BASE_URL=${1:-${BASE_URL:-http://127.0.0.1:${PORT:-3000}}}
TOKEN=${2:-${TOKEN:-}}
if [ -z "$TOKEN" ]; then
  echo "demo.sh: no token: export TOKEN=\$(make -s token) or pass it as the second argument" >&2
  exit 2
fi
if ! curl -s -o /dev/null --max-time 5 "$BASE_URL/health"; then
  echo "demo.sh: nothing answers at $BASE_URL: start the service with \`make run\` in another terminal" \
    "(or pass its URL as the first argument)" >&2
  exit 2
fi
RUN=$(python3 -c 'import uuid; print(uuid.uuid4().hex[:10])')
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
STEPS=0

# call EXPECTED_STATUS METHOD PATH [JSON_BODY] [more curl arguments...]
call() {
  local expected=$1 method=$2 path=$3
  shift 3
  local args=(-sS -o "$WORK/body" -D "$WORK/headers" -w '%{http_code}' -X "$method"
    -H "Authorization: Bearer $TOKEN" "$BASE_URL$path")
  if [ $# -gt 0 ] && [ "${1:0:1}" = "{" ]; then
    args+=(-H 'Content-Type: application/json' --data "$1")
    shift
  fi
  local status
  status=$(curl "${args[@]}" "$@")
  STEPS=$((STEPS + 1))
  printf '%-7s %-58s -> %s %s\n' "$method" "$path" "$status" "$(head -c 160 "$WORK/body" | tr '\n' ' ')"
  if grep -qi '^idempotent-replayed: true' "$WORK/headers"; then
    echo "        (Idempotent-Replayed: true: the first answer, replayed; nothing changed)"
  fi
  if [ "$status" != "$expected" ]; then
    echo "demo.sh: expected $expected from $method $path, got $status" >&2
    exit 1
  fi
}

# delete_settled PATH [more curl arguments...]: DELETE answered 204, after waiting out 409 ledger_unsettled (the
# ledger's last movements are still being settled) as its Retry-After says, as a client should.
delete_settled() {
  local path=$1
  shift
  for _ in $(seq 1 30); do
    local status
    status=$(curl -sS -o "$WORK/body" -D "$WORK/headers" -w '%{http_code}' -X DELETE \
      -H "Authorization: Bearer $TOKEN" "$BASE_URL$path" "$@")
    if [ "$status" = 409 ] && grep -q '"ledger_unsettled"' "$WORK/body"; then
      local wait
      wait=$(grep -i '^retry-after:' "$WORK/headers" | tr -dc '0-9')
      printf '%-7s %-58s -> 409 ledger_unsettled: retrying after %s s\n' DELETE "$path" "${wait:-1}"
      sleep "${wait:-1}"
      continue
    fi
    STEPS=$((STEPS + 1))
    printf '%-7s %-58s -> %s\n' DELETE "$path" "$status"
    [ "$status" = 204 ] && return 0
    echo "demo.sh: expected 204 from DELETE $path, got $status" >&2
    exit 1
  done
  echo "demo.sh: DELETE $path still waited for settlement after 30 tries" >&2
  exit 1
}

# field NAME: a top-level field of the last answer's JSON body
field() {
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$WORK/body" "$1"
}

say() { printf '\n## %s\n' "$*"; }

say "Health (no token needed)"
call 200 GET /health

say "Accounts: email and username are unique (a lock item each, in the account's own transaction)"
call 201 POST /accounts "{\"email\": \"demo-$RUN@example.com\", \"username\": \"demo_$RUN\", \"displayName\": \"Demo $RUN\"}"
ACCOUNT=$(field accountId)
call 409 POST /accounts "{\"email\": \"DEMO-$RUN@example.com \", \"username\": \"other_$RUN\"}"
call 200 GET "/accounts?limit=5"
call 200 GET "/accounts/$ACCOUNT"

say "Optimistic locking: If-Match the version you read"
call 200 PATCH "/accounts/$ACCOUNT" '{"displayName": "Renamed"}' -H 'If-Match: "0"'
call 412 PATCH "/accounts/$ACCOUNT" '{"displayName": "Stale"}' -H 'If-Match: "0"'
call 428 PATCH "/accounts/$ACCOUNT" '{"displayName": "No If-Match"}'

say "Ledger: money moves only with an Idempotency-Key; the guard is in the write"
call 201 POST "/accounts/$ACCOUNT/ledger"
call 201 POST "/accounts/$ACCOUNT/ledger/deposits" '{"amountCents": 10000}' -H "Idempotency-Key: deposit-$RUN"
call 201 POST "/accounts/$ACCOUNT/ledger/deposits" '{"amountCents": 10000}' -H "Idempotency-Key: deposit-$RUN"
call 400 POST "/accounts/$ACCOUNT/ledger/deposits" '{"amountCents": 10000}'
call 201 POST "/accounts/$ACCOUNT/ledger/withdrawals" '{"amountCents": 2500}' -H "Idempotency-Key: withdraw-$RUN"
call 409 POST "/accounts/$ACCOUNT/ledger/withdrawals" '{"amountCents": 999999}' -H "Idempotency-Key: too-much-$RUN"

say "Holds: captured or released, once"
call 201 POST "/accounts/$ACCOUNT/ledger/holds" '{"amountCents": 1500}' -H "Idempotency-Key: hold-1-$RUN"
HOLD=$(field holdId)
call 200 POST "/accounts/$ACCOUNT/ledger/holds/$HOLD/capture" -H "Idempotency-Key: capture-$RUN"
call 409 POST "/accounts/$ACCOUNT/ledger/holds/$HOLD/release" -H "Idempotency-Key: release-late-$RUN"
call 201 POST "/accounts/$ACCOUNT/ledger/holds" '{"amountCents": 1000}' -H "Idempotency-Key: hold-2-$RUN"
HOLD=$(field holdId)
call 200 POST "/accounts/$ACCOUNT/ledger/holds/$HOLD/release" -H "Idempotency-Key: release-$RUN"

say "Transfers: both sides in one transaction; a 404 is not cached under its key"
call 201 POST /accounts "{\"email\": \"savings-$RUN@example.com\", \"username\": \"savings_$RUN\"}"
SAVINGS=$(field accountId)
call 404 POST /transfers "{\"fromAccountId\": \"$ACCOUNT\", \"toAccountId\": \"$SAVINGS\", \"amountCents\": 2000}" \
  -H "Idempotency-Key: transfer-$RUN"
call 201 POST "/accounts/$SAVINGS/ledger"
call 201 POST /transfers "{\"fromAccountId\": \"$ACCOUNT\", \"toAccountId\": \"$SAVINGS\", \"amountCents\": 2000}" \
  -H "Idempotency-Key: transfer-$RUN"
call 201 POST /transfers "{\"fromAccountId\": \"$ACCOUNT\", \"toAccountId\": \"$SAVINGS\", \"amountCents\": 2000}" \
  -H "Idempotency-Key: transfer-$RUN"

say "Orders: versioned status, paid from the ledger in one transaction"
call 201 POST /orders "{\"accountId\": \"$ACCOUNT\", \"items\": [{\"sku\": \"BOOK-1843\", \"quantity\": 2, \"unitPriceCents\": 1999}]}"
ORDER=$(field orderId)
call 200 GET "/orders/$ORDER"
call 200 POST "/orders/$ORDER/pay" -H "Idempotency-Key: pay-$RUN"
call 409 POST "/orders/$ORDER/pay" -H "Idempotency-Key: pay-again-$RUN"
call 200 PATCH "/orders/$ORDER" '{"status": "SHIPPED"}' -H 'If-Match: "1"'
call 201 POST /orders "{\"accountId\": \"$ACCOUNT\", \"items\": [{\"sku\": \"PEN-1\", \"quantity\": 1, \"unitPriceCents\": 250}]}"
ORDER=$(field orderId)
call 204 DELETE "/orders/$ORDER" -H 'If-Match: "0"'

say "Statement: balance and entries, newest first"
call 200 GET "/accounts/$ACCOUNT/ledger?limit=5"

say "Deleting an account: refused while its ledger holds money"
call 409 DELETE "/accounts/$SAVINGS" -H 'If-Match: "0"'
call 201 POST "/accounts/$SAVINGS/ledger/withdrawals" '{"amountCents": 2000}' -H "Idempotency-Key: empty-$RUN"
delete_settled "/accounts/$SAVINGS" -H 'If-Match: "0"'
call 404 GET "/accounts/$SAVINGS"

printf '\ndemo.sh: %d steps, every one answered as expected (%s)\n' "$STEPS" "$BASE_URL"
