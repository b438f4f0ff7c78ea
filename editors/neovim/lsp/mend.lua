-- mend for Neovim 0.11+: copy to ~/.config/nvim/lsp/mend.lua and call vim.lsp.enable('mend').
--
-- Beside clangd: mend's `syntaxDiagnostics = 'auto'` hides mend's own syntax and type errors
-- when the editor says another C server is attached (`otherCServer`), so each mistake is
-- reported once (by clangd) while mend keeps its repairs, test results and assertion checks.
-- This file tells mend when clangd is enabled or attached; set `syntaxDiagnostics = 'on'` or
-- `'off'` to decide yourself.

--- Is clangd part of this editor session (enabled through vim.lsp.enable or already running)?
local function clangd_present()
  if vim.lsp.is_enabled and vim.lsp.is_enabled('clangd') then
    return true
  end
  return #vim.lsp.get_clients({ name = 'clangd' }) > 0
end

--- Tells every running mend client that clangd is there (clangd attached after mend started,
--- e.g. through nvim-lspconfig).
local function tell_mend_about_clangd()
  for _, client in ipairs(vim.lsp.get_clients({ name = 'mend' })) do
    if not client._mend_knows_clangd then
      client._mend_knows_clangd = true
      client:notify('workspace/didChangeConfiguration', { settings = { mend = { otherCServer = true } } })
    end
  end
end

vim.api.nvim_create_autocmd('LspAttach', {
  group = vim.api.nvim_create_augroup('mend-beside-clangd', { clear = true }),
  callback = function(args)
    local client = vim.lsp.get_client_by_id(args.data.client_id)
    if client and (client.name == 'clangd' or (client.name == 'mend' and clangd_present())) then
      tell_mend_about_clangd()
    end
  end,
})

return {
  cmd = { 'mend', 'lsp' },
  filetypes = { 'c' },
  root_markers = { 'mend.toml', '.git' },
  -- Leave `bound` and `timeout` out to use mend.toml's values (or 5 and 10 s).
  init_options = {
    mend = { syntaxDiagnostics = 'auto', runTests = true, mutationLevel = 1 },
  },
  before_init = function(params, config)
    config._mend_clangd = clangd_present()
    params.initializationOptions = vim.tbl_deep_extend(
      'force',
      params.initializationOptions or {},
      { mend = { otherCServer = config._mend_clangd } }
    )
  end,
  on_init = function(client)
    client._mend_knows_clangd = client.config._mend_clangd
  end,
}
