-- mend for nvim-lspconfig users (Neovim 0.10, or 0.11 with lspconfig's `setup` style).
-- Put this in your init.lua after nvim-lspconfig is loaded.
local configs = require('lspconfig.configs')
local util = require('lspconfig.util')

if not configs.mend then
  configs.mend = {
    default_config = {
      cmd = { 'mend', 'lsp' },
      filetypes = { 'c' },
      root_dir = util.root_pattern('mend.toml', '.git'),
      single_file_support = true,
      init_options = {
        -- Set otherCServer = false if you do not run clangd: mend then shows syntax errors.
        mend = { syntaxDiagnostics = 'auto', otherCServer = true, runTests = true },
      },
    },
  }
end

require('lspconfig').clangd.setup({})
require('lspconfig').mend.setup({})
