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
-- The settings are read when the script loads.
local getenv = os.getenv
os.getenv = function(k)
  if k == "COLO_SERVE_ASK" then return ask end
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
local function submit(answer, gres, class)
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

if failures > 0 then
  print(failures .. " failure(s)")
  os.exit(1)
end
print("PASS")
