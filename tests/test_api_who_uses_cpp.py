"""Who-uses on C++: a member function is reached through a class. An unqualified call or a call on
``this`` in a member function names its class's member or its nearest base's; a call on a variable names
the member of the class its declaration states (a parameter, a local, a field of the caller's class or of a
base, an owning pointer's class), nothing of the tree's when the type is a library's, and possibly any when
the type is not stated; a test a fixture macro defines reaches its fixture's members. Overloads are told
apart by their number of arguments and by string literals where they take a class; an override is a
possible callee of its base's method. A free function is called by linkage, unless the caller's class
declares a member of the name."""

from __future__ import annotations

from pathlib import Path

import pytest

import prooftext
from helpers import indexed_tree
from prooftext.api.risk import who_uses

TREE = {
    "src/graph.h": """
        struct Node {
          bool dirty() const { return dirty_; }
          bool dirty_;
        };
        struct Runner {
          virtual ~Runner() {}
          virtual bool Start(Node* node) = 0;
        };
        struct API Plan {
          explicit Plan(Builder* builder);
          Plan(const Plan& other);
          bool AddTarget(const Node* target, std::string* err);
          void Reset();
          int Count(int limit) const;
          int Count(int limit, int floor) const;
          void Mark(const Node* node);
          void Mark(const std::string& name);
          void Flush(int level = 0);
          void Flush(int level = 0) const { }
          void Drain() { Flush(); }
        };
        using PlanPtr = std::shared_ptr<Plan>;
        typedef std::vector<Plan> Plans;
        struct Builder {
          Node* AddTarget(const std::string& name, std::string* err);
          bool AddTarget(Node* target, std::string* err);
          virtual Plan* GetPlan() { return &plan_; }
          Plan plan_;
          std::vector<Node*> nodes_;
        };
        """,
    "src/plan.cc": """
        #include "graph.h"
        bool Plan::AddTarget(const Node* target, std::string* err) {
          Reset();
          int few = Count(1);
          return few > Count(1, 2);
        }
        void Plan::Reset() {
        }
        Plan::Plan(Builder* builder) {
        }
        Plan::Plan(const Plan& other) {
        }
        int Plan::Count(int limit) const {
          return limit;
        }
        int Plan::Count(int limit, int floor) const {
          return limit + floor;
        }
        void Plan::Mark(const Node* node) {
        }
        void Plan::Flush(int level) {
        }
        void Plan::Mark(const std::string& name) {
        }
        """,
    "src/builder.cc": """
        #include "graph.h"
        Node* Builder::AddTarget(const std::string& name, std::string* err) {
          Node* node = Lookup(name);
          if (!AddTarget(node, err))
            return nullptr;
          return node;
        }
        bool Builder::AddTarget(Node* target, std::string* err) {
          plan_.Reset();
          nodes_.push_back(target);
          return plan_.AddTarget(target, err);
        }
        """,
    "src/runner.cc": """
        #include "graph.h"
        struct DryRunner : public Runner {
          bool Start(Node* node) override { return node->dirty(); }
        };
        struct Tracing : public Plan {
          explicit Tracing(Builder* builder) : Plan(builder) {}
          void Reset() { Plan::Reset(); }
        };
        bool Launch(Runner* runner, Node* node) {
          return runner->Start(node);
        }
        void Clear(Plan& plan, Tracing* tracing) {
          plan.Reset();
        }
        void Chain(Builder* builder) {
          builder->plan_.Reset();
        }
        void Aliased(PlanPtr plan, Plans plans) {
          plan->Reset();
        }
        void Listed(Plans plans) {
          plans.Reset();
        }
        void Returned(Builder* builder) {
          builder->GetPlan()->Reset();
        }
        void Qualified() {
          ns::Tracing::Reset();
        }
        void Fresh() {
          auto other = MakePlan();
          other.Reset();
        }
        void Own() {
          std::unique_ptr<Plan> owned(new Plan);
          owned->Reset();
        }
        """,
    "src/queue.cc": """
        #include "graph.h"
        struct Queue {
          void Reset() { items_.clear(); }
          std::vector<int> items_;
        };
        struct Pool {
          void push_back(Node* node) {}
        };
        void Drain(Queue* queue) {
          queue->Reset();
        }
        """,
    "src/util.cc": """
        static bool Exists(const std::string& path) {
          return true;
        }
        bool MakeDir(const std::string& path) {
          return Exists(path);
        }
        namespace tools {
        bool Report(const std::string& path) {
          return tools::Exists(path);
        }
        bool Other(const std::string& path) {
          return std::Exists(path);
        }
        }
        bool CheckAll(const std::vector<std::string>& paths) {
          return std::all_of(paths.begin(), paths.end(), Exists);
        }
        """,
    "src/convert.cc": """
        struct Slice {
          Slice(const char* data) : data_(data) {}
          const char* data_;
        };
        struct Util {
          static void ToStr(int v, char* buffer) {}
          static void ToStr(double v, char* buffer) {}
          static void Put(const Slice& key) {}
          static void Put(Node* node) {}
        };
        void Log(const char* message, int level) {}
        void Log(const char* message) { Log(message, 0); }
        void Print(char* buffer) {
          int count = 3;
          Util::ToStr(count, buffer);
          Util::Put("key");
        }
        """,
    "src/make.cc": """
        #include "graph.h"
        Plan* Make(Builder* builder, Plan* model) {
          return new Plan(builder);
        }
        """,
    "src/disk.cc": """
        struct Disk {
          virtual bool MakeDir(const std::string& path) = 0;
          bool MakeDirs(const std::string& path) { return MakeDir(path); }
        };
        bool Setup() {
          return MakeDir("out");
        }
        """,
    "src/builder_test.cc": """
        #include "graph.h"
        struct BuilderTest : public testing::Test {
          Builder builder_;
        };
        TEST_F(BuilderTest, AddsByName) {
          std::string err;
          EXPECT_TRUE(builder_.AddTarget("all", &err));
        }
        TEST(Plain, NoFixture) {
          Reset();
        }
        TEST(Plan, SuiteNamedAsAClass) {
          Reset();
        }
        """,
}


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_tree(tmp_path_factory.mktemp("cpp_tree"), TREE)


def _dependents(root: Path, path: str, qualname: str, overload: int = 0) -> dict[tuple[str, str], str]:
    """``(caller's path, qualname): found_by`` of who-uses of ``qualname`` defined in ``path`` (its
    ``overload``-th definition there when overloads share it)."""
    with prooftext.open(root) as index:
        rows = index.conn.execute(
            "SELECT n.id FROM nodes n JOIN files f ON f.id = n.file_id WHERE f.path = ?"
            " AND n.qualname = ? AND n.kind = 'symbol' ORDER BY n.start_line",
            (path, qualname),
        ).fetchall()
        node_id = rows[overload][0]
        return {(d["path"], d["qualname"]): d["found_by"] for d in who_uses(index, node_id)}


def test_an_unqualified_call_in_a_member_function_names_its_class_s_member(tree: Path) -> None:
    assert _dependents(tree, "src/plan.cc", "Plan.Reset")[("src/plan.cc", "Plan.AddTarget")] == "call"


def test_a_call_on_a_field_names_the_member_of_the_field_s_declared_class(tree: Path) -> None:
    found = _dependents(tree, "src/plan.cc", "Plan.Reset")
    assert found[("src/builder.cc", "Builder.AddTarget")] == "call"  # `plan_.Reset()`, `Plan plan_;`


def test_a_call_on_a_parameter_or_an_owning_pointer_names_its_class_s_member(tree: Path) -> None:
    found = _dependents(tree, "src/plan.cc", "Plan.Reset")
    assert found[("src/runner.cc", "Clear")] == "call"
    assert found[("src/runner.cc", "Own")] == "call"


def test_a_call_on_a_chain_of_fields_names_the_last_field_s_class_s_member(tree: Path) -> None:
    assert _dependents(tree, "src/plan.cc", "Plan.Reset")[("src/runner.cc", "Chain")] == "call"


def test_a_receiver_declared_with_an_alias_of_the_tree_names_the_aliased_class_s_member(tree: Path) -> None:
    found = _dependents(tree, "src/plan.cc", "Plan.Reset")
    assert found[("src/runner.cc", "Aliased")] == "call"
    assert ("src/runner.cc", "Listed") not in found  # an alias of a library's type


def test_a_call_on_a_call_s_result_names_the_member_of_the_class_it_declares_it_returns(tree: Path) -> None:
    assert _dependents(tree, "src/plan.cc", "Plan.Reset")[("src/runner.cc", "Returned")] == "call"
    assert ("src/runner.cc", "Returned") not in _dependents(tree, "src/queue.cc", "Queue.Reset")


def test_a_call_qualified_by_a_namespace_and_a_class_names_the_class_s_member(tree: Path) -> None:
    assert _dependents(tree, "src/plan.cc", "Plan.Reset").get(("src/runner.cc", "Qualified")) is None
    assert _dependents(tree, "src/runner.cc", "Tracing.Reset")[("src/runner.cc", "Qualified")] == "call"


def test_a_call_on_another_class_s_object_is_no_use(tree: Path) -> None:
    found = _dependents(tree, "src/plan.cc", "Plan.Reset")
    assert ("src/queue.cc", "Drain") not in found
    assert ("src/builder_test.cc", "TEST") not in found  # no class: no member is called bare


def test_a_call_on_a_library_type_is_no_use(tree: Path) -> None:
    assert _dependents(tree, "src/queue.cc", "Pool.push_back") == {}  # `nodes_.push_back(target)`


def test_a_qualified_call_of_a_base_s_member_names_it(tree: Path) -> None:
    found = _dependents(tree, "src/plan.cc", "Plan.Reset")
    assert found[("src/runner.cc", "Tracing.Reset")] == "call"


def test_a_class_head_with_an_export_macro_declares_no_variable_of_the_class_s_name(tree: Path) -> None:
    assert _dependents(tree, "src/plan.cc", "Plan.Reset")[("src/runner.cc", "Tracing.Reset")] == "call"


def test_an_override_is_a_possible_callee_of_its_base_s_method(tree: Path) -> None:
    found = _dependents(tree, "src/runner.cc", "DryRunner.Start")
    assert found == {("src/runner.cc", "Launch"): "possible"}


def test_overloads_are_told_apart_by_their_number_of_arguments(tree: Path) -> None:
    one = _dependents(tree, "src/plan.cc", "Plan.Count", 0)
    two = _dependents(tree, "src/plan.cc", "Plan.Count", 1)
    assert one == {("src/plan.cc", "Plan.AddTarget"): "call"}
    assert two == {("src/plan.cc", "Plan.AddTarget"): "call"}


def test_an_overload_defined_outside_its_class_takes_the_defaults_its_declaration_gives(tree: Path) -> None:
    defined_outside = _dependents(tree, "src/plan.cc", "Plan.Flush")
    defined_inside = _dependents(tree, "src/graph.h", "Plan.Flush")
    # `Flush()` in `Drain`: the out-of-class definition's `level` defaults to 0 in the class's declaration
    assert defined_outside == {("src/graph.h", "Plan.Drain"): "possible"}
    assert defined_inside == {("src/graph.h", "Plan.Drain"): "possible"}


def test_a_string_literal_rules_out_an_overload_taking_a_class_of_the_tree(tree: Path) -> None:
    by_name = _dependents(tree, "src/builder.cc", "Builder.AddTarget", 0)
    by_node = _dependents(tree, "src/builder.cc", "Builder.AddTarget", 1)
    assert by_name == {("src/builder_test.cc", "TEST_F"): "call"}
    assert by_node == {("src/builder.cc", "Builder.AddTarget"): "call"}


def test_a_test_a_fixture_macro_defines_reaches_its_fixture_s_fields(tree: Path) -> None:
    found = _dependents(tree, "src/builder.cc", "Builder.AddTarget", 0)
    assert found[("src/builder_test.cc", "TEST_F")] == "call"


def test_a_type_not_stated_leaves_the_call_possible(tree: Path) -> None:
    assert _dependents(tree, "src/plan.cc", "Plan.Reset")[("src/runner.cc", "Fresh")] == "possible"


def test_a_free_function_is_called_by_linkage(tree: Path) -> None:
    assert _dependents(tree, "src/util.cc", "Exists")[("src/util.cc", "MakeDir")] == "call"
    assert _dependents(tree, "src/util.cc", "MakeDir") == {("src/disk.cc", "Setup"): "call"}


def test_a_member_the_caller_s_class_declares_hides_a_free_function(tree: Path) -> None:
    assert ("src/disk.cc", "Disk.MakeDirs") not in _dependents(tree, "src/util.cc", "MakeDir")


def test_an_overload_s_own_qualified_name_is_no_use_of_another(tree: Path) -> None:
    assert _dependents(tree, "src/plan.cc", "Plan.Mark", 0) == {}
    assert _dependents(tree, "src/plan.cc", "Plan.Mark", 1) == {}


def test_a_definition_s_own_qualified_name_is_no_use(tree: Path) -> None:
    found = _dependents(tree, "src/builder.cc", "Builder.AddTarget", 1)
    assert ("src/builder.cc", "Builder.AddTarget") in found  # the call in the other overload
    assert set(found) == {("src/builder.cc", "Builder.AddTarget")}


def test_a_call_of_a_class_s_name_reaches_the_constructor_its_arguments_fit(tree: Path) -> None:
    built = _dependents(tree, "src/plan.cc", "Plan.Plan", 0)
    copied = _dependents(tree, "src/plan.cc", "Plan.Plan", 1)
    assert built[("src/make.cc", "Make")] == "call"  # `new Plan(builder)`, not `Plan* model`
    assert built[("src/runner.cc", "Tracing.Tracing")] == "call"  # a base's initializer
    assert ("src/make.cc", "Make") not in copied


def test_a_free_function_qualified_by_the_tree_s_namespace_is_called_and_by_another_s_not(tree: Path) -> None:
    found = _dependents(tree, "src/util.cc", "Exists")
    assert found[("src/util.cc", "tools.Report")] == "call"
    assert ("src/util.cc", "tools.Other") not in found


def test_a_free_function_passed_on_is_a_reference_by_linkage(tree: Path) -> None:
    assert _dependents(tree, "src/util.cc", "Exists")[("src/util.cc", "CheckAll")] == "reference"


def test_the_overload_an_argument_s_type_matches_exactly_is_preferred(tree: Path) -> None:
    assert _dependents(tree, "src/convert.cc", "Util.ToStr", 0) == {("src/convert.cc", "Print"): "call"}
    assert _dependents(tree, "src/convert.cc", "Util.ToStr", 1) == {}


def test_a_literal_fits_a_class_one_of_whose_constructors_takes_one_argument(tree: Path) -> None:
    assert _dependents(tree, "src/convert.cc", "Util.Put", 0) == {("src/convert.cc", "Print"): "call"}
    assert _dependents(tree, "src/convert.cc", "Util.Put", 1) == {}


def test_a_free_function_s_overloads_in_its_file_are_told_apart_by_the_arguments(tree: Path) -> None:
    with_level = _dependents(tree, "src/convert.cc", "Log", 0)
    without = _dependents(tree, "src/convert.cc", "Log", 1)
    assert with_level == {("src/convert.cc", "Log"): "call"}
    assert without == {}
