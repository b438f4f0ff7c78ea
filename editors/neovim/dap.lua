-- mend's debugger for nvim-dap (https://github.com/mfussenegger/nvim-dap): the program runs in
-- mend's interpreter, never natively. Put this file in your config (e.g. `lua/mend_dap.lua`
-- and `require('mend_dap')`). `:DapContinue` starts a session on the current C file and asks
-- for its input; the REPL (`:DapToggleRepl`) takes mend's commands: `heap`, `print p->next`,
-- `change n4->prev n3`, `spec`, `repair`, `help`. `:MendHeap` shows the heap in a float.
local dap = require('dap')

dap.adapters.mend = { type = 'executable', command = 'mend', args = { 'dap' } }

dap.configurations.c = dap.configurations.c or {}
table.insert(dap.configurations.c, {
  type = 'mend',
  request = 'launch',
  name = 'mend: run this file',
  program = '${file}',
  -- The program's stdin; a test of the file's mend.toml can be named with `test = '3'` instead.
  input = function()
    return vim.fn.input('input (stdin): ') .. '\n'
  end,
})

-- The heap of the selected frame, as mend draws it, in a float.
vim.api.nvim_create_user_command('MendHeap', function()
  local session = dap.session()
  if not session then
    vim.notify('mend: no debugging session', vim.log.levels.WARN)
    return
  end
  local frame = session.current_frame
  session:request('mendHeap', { frameId = frame and frame.id or 1 }, function(err, response)
    if err then
      vim.notify('mend: ' .. tostring(err.message or err), vim.log.levels.WARN)
      return
    end
    local lines = vim.split(response.text or '', '\n', { trimempty = true })
    if #lines == 0 then
      lines = { '(no variables here)' }
    end
    local width = 20
    for _, l in ipairs(lines) do
      width = math.max(width, vim.fn.strdisplaywidth(l))
    end
    local buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    vim.api.nvim_open_win(buf, true, {
      relative = 'cursor', row = 1, col = 0, style = 'minimal', border = 'rounded',
      width = math.min(width, vim.o.columns - 4), height = math.min(#lines, vim.o.lines - 4),
      title = ' heap ',
    })
    vim.keymap.set('n', 'q', '<cmd>close<cr>', { buffer = buf })
  end)
end, {})
