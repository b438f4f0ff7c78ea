-- Loads editors/neovim/dap.lua against a stand-in for nvim-dap (not packaged anywhere this
-- machine can reach): the adapter and the launch configuration it registers, and :MendHeap's
-- float with the text a `mendHeap` answer carries. The adapter itself is tested end to end by
-- the `dap` fixtures (tests/common/dap.rs).
-- nvim --clean --headless -l nvim_dap.lua ROOT
local root = arg[1]
local asked = {}
local fake = { adapters = {}, configurations = {} }
function fake.session()
  return {
    current_frame = { id = 2 },
    request = function(_, command, args, callback)
      table.insert(asked, { command = command, frame = args.frameId })
      callback(nil, { text = 'head → n1\nn1: data = 1, next = NULL\n', dot = 'digraph heap {}' })
    end,
  }
end
package.preload['dap'] = function() return fake end

dofile(root .. '/editors/neovim/dap.lua')

local function check(cond, what)
  if not cond then
    io.stderr:write('FAILED: ' .. what .. '\n')
    os.exit(1)
  end
end

local adapter = fake.adapters.mend
check(adapter and adapter.type == 'executable' and adapter.command == 'mend' and adapter.args[1] == 'dap',
  'the adapter starts `mend dap`')
local config = fake.configurations.c and fake.configurations.c[1]
check(config and config.type == 'mend' and config.request == 'launch' and config.program == '${file}',
  'a launch configuration for C files')
check(type(config.input) == 'function', 'the input is asked for')

vim.cmd('MendHeap')
check(#asked == 1 and asked[1].command == 'mendHeap' and asked[1].frame == 2, 'MendHeap asks for the selected frame')
local win = vim.api.nvim_get_current_win()
check(vim.api.nvim_win_get_config(win).relative ~= '', 'the heap is in a float')
local lines = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false)
check(#lines == 2 and lines[1] == 'head → n1' and lines[2] == 'n1: data = 1, next = NULL', 'the float shows the heap')
print('ok: the adapter, the configuration and the heap float')
