-- mend for Neovim 0.11+: copy to ~/.config/nvim/lsp/mend.lua and call vim.lsp.enable('mend').
return {
  cmd = { 'mend', 'lsp' },
  filetypes = { 'c' },
  root_markers = { 'mend.toml', '.git' },
  init_options = {
    mend = { syntaxDiagnostics = true, runTests = true, timeout = 10, bound = 5 },
  },
}
