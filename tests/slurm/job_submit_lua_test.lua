-- job_submit.lua against a stand-in `slurm` table and a stand-in
-- colo-serve-ask that prints a canned answer: what reaches job_desc, the
-- user and the log for each kind of answer colo serve can give, including
-- none (not running), an error, garbage and a node name Slurm cannot take.
-- usage: lua5.3 job_submit_lua_test.lua SOURCE_DIR SCRATCH_DIR
-- (Slurm runs the plug-in under Lua 5.1; it uses nothing 5.3 lacks.)
local source, scratch = arg[1], arg[2]
local logged, told = {}, {}
slurm = {
  SUCCESS = 0, ERROR = -1,
  log_info = function(fmt, ...) logged[#logged + 1] = string.format(fmt, ...) end,
  log_user = function(msg) told[#told + 1] = msg end,
}
os.execute("mkdir -p " .. scratch)
local ask = scratch .. "/fake-ask"
-- The settings are read when the script loads. The helper path first
-- (COLO_SERVE_VIA=helper), LuaSocket's below.
local getenv = os.getenv
local settings = {COLO_SERVE_ASK = ask, COLO_SERVE_VIA = "helper"}
os.getenv = function(k)
  if settings[k] ~= nil then return settings[k] end
  return getenv(k)
end
dofile(source .. "/slurm/job_submit.lua")

local failures = 0
local function expect(cond, what)
  if not cond then
    failures = failures + 1
    print("FAIL: " .. what)
  end
end

-- Submits a job with `gres` and class `class` while colo-serve-ask
-- prints `answer` (nil: the helper does not exist).
local function submit(answer, gres, class, per_job)
  os.remove(ask)
  if answer ~= nil then
    local f = io.open(ask, "w")
    f:write("#!/bin/sh\ncat <<'EOF_ANSWER'\n" .. answer .. "\nEOF_ANSWER\n")
    f:close()
    os.execute("chmod +x " .. ask)
  end
  logged, told = {}, {}
  local env = {}
  if class then env[0] = "SPANK_COLO_CLASS=" .. class end
  local jd = {name = "j", user_name = "alice", tres_per_node = gres,
              tres_per_job = per_job,
              spank_job_env = env, spank_job_env_size = class and 1 or 0}
  return slurm_job_submit(jd, nil, 1000), jd
end

-- A placement: the node list, the comment with the tag, the grant.
local rc, jd = submit('{"ok":true,"id":"c3","node":"n2","gpus":[1],' ..
  '"granted":"high","source":"plan","grant_reason":"granted to account ' ..
  '\'inference\'","reason":"colo plan: shares GPU 1 (mps) with \\"c1\\""}',
  "gres:shard:1", "high")
expect(rc == slurm.SUCCESS, "placed: success")
expect(jd.req_nodes == "n2", "placed: req_nodes n2, got " .. tostring(jd.req_nodes))
expect(jd.comment == 'colo[c3]: node n2 GPU 1, high: colo plan: shares GPU 1 (mps) with "c1"',
       "placed: comment " .. tostring(jd.comment))
expect(jd.admin_comment == "colo-class=high; granted to account 'inference'",
       "placed: admin_comment " .. tostring(jd.admin_comment))

-- Typed GPUs (gres_types): the job's gpu/shard request becomes colo's typed
-- one, so that Slurm grants GPU 2; other gres items stay.
local typed = '{"ok":true,"id":"c4","node":"n1","gpus":[2],' ..
  '"granted":"best-effort","source":"plan","grant_reason":"asked for ' ..
  'best-effort","gres":"gres:shard:g2:1","reason":"colo plan: alone"}'
rc, jd = submit(typed, "gres:shard:1,gres:foo:1", nil)
expect(rc == slurm.SUCCESS and jd.req_nodes == "n1", "typed: placed on n1")
expect(jd.tres_per_node == "gres:foo:1,gres:shard:g2:1",
       "typed: tres_per_node " .. tostring(jd.tres_per_node))
-- --gpus=N (tres_per_job): the node only; Slurm picks the GPU on it.
rc, jd = submit(typed:gsub("shard:g2:1", "gpu:g2:1"), nil, nil, "gres:gpu:1")
expect(rc == slurm.SUCCESS and jd.req_nodes == "n1" and
       jd.tres_per_node == nil and jd.tres_per_job == "gres:gpu:1",
       "typed, --gpus: node only, got " .. tostring(jd.req_nodes) .. " " ..
       tostring(jd.tres_per_node) .. " " .. tostring(jd.comment))
-- A gres request Slurm could misread: Slurm's own choice.
rc, jd = submit(typed:gsub("shard:g2:1", "shard:g2:1 --x"), "gres:shard:1", nil)
expect(rc == slurm.SUCCESS and jd.req_nodes == nil and
       jd.tres_per_node == "gres:shard:1", "typed, bad gres: fallback")
expect(logged[1] and logged[1]:find("gres request Slurm cannot take", 1, true),
       "typed, bad gres: logged")

-- No node: Slurm's choice, the reason in the comment.
rc, jd = submit('{"ok":true,"id":"","node":"","gpus":[],"granted":"best-effort",' ..
  '"source":"","grant_reason":"asked for best-effort","reason":"colo plan: waiting"}',
  "gres:gpu:1", nil)
expect(rc == slurm.SUCCESS and jd.req_nodes == nil, "no node: Slurm's choice")
expect(jd.comment == "colo: colo plan: waiting", "no node: comment " .. tostring(jd.comment))

-- A rejection reaches the user and fails the submission.
rc, jd = submit('{"ok":false,"reject":"--gres=shard:9 asks for more shards"}',
  "gres:shard:9", nil)
expect(rc == slurm.ERROR, "reject: error")
expect(told[1] == "colo: --gres=shard:9 asks for more shards", "reject: told " .. tostring(told[1]))

-- High priority without a GPU: rejected without asking colo serve.
rc, jd = submit(nil, nil, "high")
expect(rc == slurm.ERROR and told[1] and told[1]:find("is for GPU jobs", 1, true),
       "high without GPU rejected")

-- Every failure falls back to Slurm's choice, best-effort, logged.
local failing = {
  {nil, "not running"},
  {'{"ok":false,"error":"colo serve: not reachable: No such file"}', "not reachable"},
  {"<html>garbage", "answered garbage"},
  {'{"ok":true,"id":"c1","node":"n1,n2","gpus":[0],"granted":"high",' ..
   '"source":"plan","grant_reason":"g","reason":"r"}', "cannot take"},
  {'{"ok":true,"id":"c1","node":"n1","gpus":[0],"granted":"root",' ..
   '"source":"plan","grant_reason":"g","reason":"r"}', "answered garbage"},
}
for _, case in ipairs(failing) do
  rc, jd = submit(case[1], "gres:shard:1", "high")
  expect(rc == slurm.SUCCESS, case[2] .. ": submission succeeds")
  expect(jd.req_nodes == nil, case[2] .. ": Slurm's own choice")
  expect(jd.admin_comment and jd.admin_comment:find("^colo%-class=best%-effort; "),
         case[2] .. ": best-effort, got " .. tostring(jd.admin_comment))
  expect(logged[1] and logged[1]:find("keeps Slurm's own choice", 1, true),
         case[2] .. ": logged")
end

-- A CPU job is left alone.
rc, jd = submit(nil, nil, nil)
expect(rc == slurm.SUCCESS and jd.comment == nil and jd.admin_comment == nil,
       "CPU job untouched")

-- LuaSocket's socket.unix (Debian's lua-socket), when this Lua has it: the
-- request goes to the socket from Lua itself, no process. A one-shot server
-- (this interpreter, in the background) answers one line and records the
-- request it got.
local has_unix = pcall(require, "socket.unix")
if has_unix then
  local sock = scratch .. "/serve.sock"
  local got = scratch .. "/got"
  os.remove(sock)
  os.remove(got)
  local server = scratch .. "/server.lua"
  local f = io.open(server, "w")
  f:write(string.format([=[
local unix = require("socket.unix")
local s = (unix.stream or unix)()
assert(s:bind(%q))
assert(s:listen(1))
s:settimeout(20)
local c = assert(s:accept())
c:settimeout(20)
local line = c:receive("*l")
local out = io.open(%q, "w")
out:write(line or "")
out:close()
c:send(%q .. "\n")
c:close()
s:close()
]=], sock, got, typed))
  f:close()
  os.execute(string.format("%s %s &", arg[-1] or "lua5.3", server))
  -- Bounded: the server binds within 10 s or the test fails.
  local socket = require("socket")
  local deadline = socket.gettime() + 10
  while socket.gettime() < deadline do
    local probe = io.open(sock, "r")
    if probe then probe:close() break end
    socket.sleep(0.01)
  end
  settings = {COLO_SERVE_ASK = "/nonexistent/helper", COLO_SERVE_SOCKET = sock,
              COLO_SERVE_TIMEOUT_MS = "5000"}
  dofile(source .. "/slurm/job_submit.lua")
  logged, told = {}, {}
  local jd = {name = "j", user_name = "alice", tres_per_node = "gres:shard:1",
              spank_job_env = {}, spank_job_env_size = 0}
  rc = slurm_job_submit(jd, nil, 1000)
  expect(rc == slurm.SUCCESS and jd.req_nodes == "n1" and
         jd.tres_per_node == "gres:shard:g2:1",
         "socket.unix: placed as colo serve said, got " .. tostring(jd.req_nodes))
  local g = io.open(got, "r")
  local request = g and g:read("*a") or ""
  if g then g:close() end
  expect(request:find('"op":"place"', 1, true) and
         request:find('"shards":1', 1, true),
         "socket.unix: the request reached the socket: " .. request)
  expect(logged[1] and logged[1]:find(" ms via socket.unix", 1, true),
         "socket.unix: the cost is logged: " .. tostring(logged[1]))
  -- Nobody listens: Slurm's own choice, and why. A path nobody ever bound
  -- (the server above may still be closing its socket).
  settings.COLO_SERVE_SOCKET = scratch .. "/nobody.sock"
  dofile(source .. "/slurm/job_submit.lua")
  rc, jd = slurm_job_submit({name = "j", user_name = "alice",
                             tres_per_node = "gres:shard:1"}, nil, 1000), nil
  expect(rc == slurm.SUCCESS and logged[#logged] and
         logged[#logged]:find("colo serve: not reachable", 1, true),
         "socket.unix, no server: fallback logged: " .. tostring(logged[#logged]))
else
  print("note: no LuaSocket (socket.unix) in this Lua: its path is not tested")
end

if failures > 0 then
  print(failures .. " failure(s)")
  os.exit(1)
end
print("PASS")
