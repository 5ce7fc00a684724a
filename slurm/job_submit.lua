--[[
colo's job_submit plug-in for Slurm (JobSubmitPlugins=lua; this file is
job_submit.lua beside slurm.conf). docs/slurm.md describes it.

For every GPU job (--gres=gpu:N, --gres=shard:K, --gpus=N) it asks the
placement service `colo serve` for a node and GPU, and
  * sets the job's node list (job_desc.req_nodes) to colo's node and its
    comment to "colo[ID]: ..." saying why (ID: the placement, which colo
    serve finds again in squeue's comments);
  * when gres.conf types each GPU (g0, g1, ...: `colo gres-conf --typed`,
    colo serve's `gres_types: true`), replaces the job's gpu/shard request
    (--gres, job_desc.tres_per_node) by the typed one colo serve names,
    e.g. gres:shard:g2:1, so that Slurm grants the GPU colo chose: Slurm
    22.05's job_submit has no other way to pick the GPU within a node;
  * writes the class the operator grants into the job's AdminComment
    ("colo-class=high; <why>"), which only an operator can change; the
    SPANK plug-in reads it in each task. --colo-class is only a request;
  * rejects with a message the user sees (slurm.log_user) what cannot run:
    high priority without a GPU; more shards than one GPU has.
When colo serve is not running, is slow or answers garbage, the job keeps
Slurm's own choice, runs best-effort, and slurmctld's log says why:
submission is never blocked.

The request goes to colo serve's Unix socket from Lua itself when
LuaSocket's socket.unix loads (Debian: apt-get install lua-socket; Slurm's
Lua 5.1 loads it): no process per job. Without it, through the small helper
colo-serve-ask (io.popen: a process per GPU job). Either way bounded by
COLO_SERVE_TIMEOUT_MS. COLO_SERVE_VIA=helper forces the helper.
Settings: the environment of slurmctld, else the defaults below.
]]

local SOCKET = os.getenv("COLO_SERVE_SOCKET") or "/run/colo/serve.sock"
local ASK = os.getenv("COLO_SERVE_ASK") or "/usr/lib/colo/colo-serve-ask"
local TIMEOUT_MS = tonumber(os.getenv("COLO_SERVE_TIMEOUT_MS") or "") or 200

-- LuaSocket, when installed and not turned off: (unix module, socket module).
local function load_luasocket()
  if os.getenv("COLO_SERVE_VIA") == "helper" then return nil, nil end
  local ok_unix, unix = pcall(require, "socket.unix")
  if not ok_unix or type(unix) ~= "table" then return nil, nil end
  local ok_socket, socket = pcall(require, "socket")
  return unix, ok_socket and socket or nil
end
local UNIX, SOCKETLIB = load_luasocket()

local function json_string(s)
  s = tostring(s or "")
  s = s:gsub('[%c"\\]', function(c)
    if c == '"' then return '\\"' end
    if c == '\\' then return '\\\\' end
    return string.format("\\u%04x", string.byte(c))
  end)
  return '"' .. s .. '"'
end

local function shell_quote(s)
  return "'" .. s:gsub("'", "'\\''") .. "'"
end

-- A string field of colo serve's answer (its keys come in a fixed order
-- with "reason" last; see src/serve/serve_protocol.cc).
local function field(answer, key)
  if answer:find('"' .. key .. '":""', 1, true) then return "" end
  local v = answer:match('"' .. key .. '":"(.-[^\\])"[,}]')
  if v == nil then return nil end
  return (v:gsub('\\"', '"'):gsub('\\\\', '\\'))
end

local function last_field(answer, key)
  local v = answer:match('"' .. key .. '":"(.*)"}$')
  if v == nil then return nil end
  return (v:gsub('\\"', '"'):gsub('\\\\', '\\'))
end

-- GPUs the job asks for: whole GPUs and shards (per node; 0 when none).
local function gpu_request(job_desc)
  local gpus, shards = 0, 0
  -- By name, not ipairs: ipairs stops at the first field that is nil.
  for _, key in ipairs({"tres_per_node", "tres_per_job", "gres"}) do
    local spec = job_desc[key]
    if spec ~= nil then
      for item in tostring(spec):gmatch("[^,]+") do
        local n = item:match("gpu:(%d+)$") or item:match("gpu:[^:]+:(%d+)$")
        if n == nil and (item:match("gpu$")) then n = "1" end
        local k = item:match("shard:(%d+)$") or
                  item:match("shard:[^:]+:(%d+)$")
        if k == nil and (item:match("shard$")) then k = "1" end
        if n ~= nil then gpus = math.max(gpus, tonumber(n)) end
        if k ~= nil then shards = math.max(shards, tonumber(k)) end
      end
    end
  end
  return gpus, shards
end

-- What the SPANK plug-in put in the job-control environment.
local function spank_value(job_desc, name)
  local env = job_desc.spank_job_env
  if env == nil then return nil end
  local size = job_desc.spank_job_env_size or 0
  -- Indexed from 0: ipairs would skip the first entry.
  for i = 0, size do
    local e = env[i]
    if e ~= nil then
      local v = e:match("^SPANK_" .. name .. "=(.*)$") or
                e:match("^" .. name .. "=(.*)$")
      if v ~= nil then return v end
    end
  end
  return nil
end

-- Whether a tres item ("gres:gpu:1", "gres:shard:g2:1", "gpu:tesla:2")
-- asks for GPUs or shards.
local function gpu_item(item)
  local name = item:gsub("^gres[:/]", ""):match("^([%w_]+)")
  return name == "gpu" or name == "shard"
end

-- `spec` with its gpu and shard items replaced by `gres` (colo serve's
-- typed request); other items kept.
local function with_gres(spec, gres)
  local items = {}
  for item in tostring(spec or ""):gmatch("[^,]+") do
    if not gpu_item(item) then items[#items + 1] = item end
  end
  items[#items + 1] = gres
  return table.concat(items, ",")
end

-- Whether the job's gpu/shard request is in tres_per_node (--gres), where
-- colo's typed request replaces it.
local function asks_per_node(job_desc)
  for item in tostring(job_desc.tres_per_node or ""):gmatch("[^,]+") do
    if gpu_item(item) then return true end
  end
  return false
end

-- An error answer, as colo-serve-ask prints one.
local function error_answer(what)
  return '{"ok":false,"error":' .. json_string("colo serve: " .. what) .. '}'
end

-- One request, one answer line: over socket.unix in this process.
local function ask_direct(request)
  local c = (UNIX.stream or UNIX)()
  if c == nil then return error_answer("socket.unix: no socket") end
  -- "t": the whole exchange within the timeout, not each call.
  c:settimeout(TIMEOUT_MS / 1000, "t")
  local ok, err = c:connect(SOCKET)
  if not ok then
    c:close()
    return error_answer("not reachable: " .. tostring(err))
  end
  ok, err = c:send(request .. "\n")
  if not ok then
    c:close()
    return error_answer("send: " .. tostring(err))
  end
  local line
  line, err = c:receive("*l")
  c:close()
  if line == nil then
    if err == "timeout" then return error_answer("no answer within the timeout") end
    return error_answer("closed without an answer (" .. tostring(err) .. ")")
  end
  return line
end

-- The same through colo-serve-ask; nil if it cannot be run.
local function ask_helper(request)
  local cmd = shell_quote(ASK) .. " " .. shell_quote(SOCKET) .. " " ..
              TIMEOUT_MS .. " " .. shell_quote(request) .. " 2>&1"
  local pipe = io.popen(cmd, "r")
  if pipe == nil then return nil end
  local answer = pipe:read("*l") or ""
  pipe:close()
  return answer
end

local function fallback(job_desc, why)
  slurm.log_info("colo: job_submit: %s; the job keeps Slurm's own choice " ..
                 "and runs best-effort", why)
  job_desc.comment = "colo: Slurm's own choice (" .. why .. ")"
  job_desc.admin_comment = "colo-class=best-effort; " .. why
  return slurm.SUCCESS
end

function slurm_job_submit(job_desc, part_list, submit_uid)
  local class = spank_value(job_desc, "COLO_CLASS") or "best-effort"
  local profile = spank_value(job_desc, "COLO_PROFILE") or ""
  local gpus, shards = gpu_request(job_desc)
  if class == "high" and gpus == 0 and shards == 0 then
    slurm.log_user("colo: high priority (--colo-class=high) is for GPU " ..
                   "jobs: ask for --gres=gpu:N or --gres=shard:K, or drop " ..
                   "--colo-class")
    return slurm.ERROR
  end
  if gpus == 0 and shards == 0 then
    if class ~= "best-effort" or profile ~= "" then
      job_desc.admin_comment = "colo-class=best-effort; no GPU asked for"
    end
    return slurm.SUCCESS
  end
  local request = '{"op":"place","name":' .. json_string(job_desc.name) ..
      ',"user":' .. json_string(job_desc.user_name) ..
      ',"account":' .. json_string(job_desc.account) ..
      ',"class":' .. json_string(class) ..
      ',"gpus":' .. gpus .. ',"shards":' .. shards ..
      ',"profile":' .. json_string(profile) .. '}'
  local started = SOCKETLIB and SOCKETLIB.gettime()
  local answer, via
  if UNIX then
    answer, via = ask_direct(request), "socket.unix"
  else
    answer, via = ask_helper(request), "colo-serve-ask"
    if answer == nil then
      return fallback(job_desc, "cannot run " .. ASK)
    end
  end
  -- What asking cost this slurmctld thread (docs/measurements/slurm.md).
  local cost = started and
      string.format(" in %.2f ms via %s", (SOCKETLIB.gettime() - started) *
                    1000, via) or (" via " .. via)
  if answer:match('^{"ok":true,') then
    local id = field(answer, "id") or ""
    local node = field(answer, "node")
    local granted = field(answer, "granted")
    local reason = last_field(answer, "reason") or ""
    if node == nil or (granted ~= "high" and granted ~= "best-effort") then
      return fallback(job_desc, "colo serve answered garbage: " ..
                      answer:sub(1, 200))
    end
    if node ~= "" and not node:match("^[%w%-%._]+$") then
      return fallback(job_desc, "colo serve answered a node name Slurm " ..
                      "cannot take: " .. node:sub(1, 80))
    end
    local gpu_list = answer:match('"gpus":%[([%d,]*)%]') or ""
    job_desc.admin_comment = "colo-class=" .. granted .. "; " ..
                             (field(answer, "grant_reason") or "")
    if node == "" then
      job_desc.comment = "colo: " .. reason
      return slurm.SUCCESS
    end
    local gres = field(answer, "gres") or ""
    if gres ~= "" and not gres:match("^[%w:,]+$") then
      return fallback(job_desc, "colo serve answered a gres request Slurm " ..
                      "cannot take: " .. gres:sub(1, 80))
    end
    job_desc.req_nodes = node
    -- --gpus=N (tres_per_job) keeps Slurm's choice of GPU on the node.
    if gres ~= "" and asks_per_node(job_desc) then
      job_desc.tres_per_node = with_gres(job_desc.tres_per_node, gres)
    end
    job_desc.comment = "colo[" .. id .. "]: node " .. node .. " GPU " ..
                       gpu_list .. ", " .. granted .. ": " .. reason
    slurm.log_info("colo: job_submit: %s -> %s GPU %s (%s)%s",
                   tostring(job_desc.name), node, gpu_list, id, cost)
    return slurm.SUCCESS
  end
  local reject = answer:match('^{"ok":false,"reject":') and
                 last_field(answer, "reject")
  if reject then
    slurm.log_user("colo: " .. reject)
    return slurm.ERROR
  end
  local err = answer:match('^{"ok":false,"error":') and
              last_field(answer, "error")
  if err then return fallback(job_desc, err) end
  return fallback(job_desc, "colo serve answered garbage: " ..
                  answer:sub(1, 200))
end

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
  return slurm.SUCCESS
end

return slurm.SUCCESS
