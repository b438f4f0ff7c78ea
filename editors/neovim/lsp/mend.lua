-- mend for Neovim 0.11+: copy to ~/.config/nvim/lsp/mend.lua and call vim.lsp.enable('mend').
--
-- Beside clangd (or another C server): mend's `syntaxDiagnostics = 'auto'` hides mend's own
-- syntax and type errors while another C server is attached to the same buffer
-- (`otherCServer`), so each mistake is reported once, by that server; mend keeps its quick
-- fixes for them, its repairs, test results and assertion checks. This file decides from the
-- servers actually attached to the buffers, never from a configuration that may not start.
-- Set `syntaxDiagnostics = 'on'` or `'off'` to decide yourself.

--- Is `client` a C language server other than mend?
local function other_c_server(client)
  if client.name == 'mend' then
    return false
  end
  if client.name == 'clangd' or client.name == 'ccls' then
    return true
  end
  local filetypes = client.config and client.config.filetypes or {}
  return vim.tbl_contains(filetypes, 'c')
end

--- Is another C server attached to a buffer mend is attached to? `leaving` is a client being
--- detached (still listed while LspDetach runs).
local function another_server_beside_mend(leaving)
  for _, mend in ipairs(vim.lsp.get_clients({ name = 'mend' })) do
    for buf in pairs(mend.attached_buffers or {}) do
      for _, other in ipairs(vim.lsp.get_clients({ bufnr = buf })) do
        if other.id ~= leaving and other_c_server(other) then
          return true
        end
      end
    end
  end
  return false
end

--- Tells every running mend client whether another C server is beside it, when that changed.
local function tell_mend(leaving)
  local present = another_server_beside_mend(leaving)
  for _, client in ipairs(vim.lsp.get_clients({ name = 'mend' })) do
    if client._mend_other_server ~= present then
      client._mend_other_server = present
      client:notify('workspace/didChangeConfiguration', { settings = { mend = { otherCServer = present } } })
    end
  end
end

local group = vim.api.nvim_create_augroup('mend-beside-other-c-servers', { clear = true })
vim.api.nvim_create_autocmd('LspAttach', {
  group = group,
  callback = function()
    tell_mend(nil)
  end,
})
vim.api.nvim_create_autocmd('LspDetach', {
  group = group,
  callback = function(args)
    tell_mend(args.data.client_id)
  end,
})

return {
  cmd = { 'mend', 'lsp' },
  filetypes = { 'c' },
  root_markers = { 'mend.toml', '.git' },
  -- Leave `bound` and `timeout` out to use mend.toml's values (or 5 and 10 s). Another C
  -- server is only assumed once one is attached (LspAttach above).
  init_options = {
    mend = { syntaxDiagnostics = 'auto', runTests = true, mutationLevel = 1, otherCServer = false },
  },
  on_init = function(client)
    client._mend_other_server = false
  end,
}
