// Placeholder translation unit so that aggregate and not-yet-populated modules form valid libraries.
namespace kiln::detail {
[[maybe_unused]] static int empty_module_anchor = 0;
}
