import ControllerReg
import Testing

/// The lifetime rule: a singleton must not reach a `graph` entry through object references.
@Suite("Lifetime rule: singletons never keep graph objects")
struct LifetimeTests {
    /// Loads `text` into a fresh registry, expecting it to fail; returns the lifetime problems.
    private func lifetimeProblems(_ text: String, into registry: Registry = Registry()) -> [Diagnostic] {
        guard let error = expectError({ try registry.load(text: text, file: "app.yaml") }) else {
            Issue.record("the load succeeded")
            return []
        }
        return error.diagnostics.filter { $0.code == .lifetime }
    }

    @Test func singletonReferringToAGraphEntryDirectlyIsRefusedAtItsPlace() throws {
        let r = Registry()
        let problems = lifetimeProblems(
            """
            RequestContext: {ClassName: Ctx, Lifestyle: graph}
            Cart: {ClassName: C, Lifestyle: singleton, Dependencies: {context: RequestContext}}
            """, into: r)
        #expect(problems.count == 1)
        let p = try #require(problems.first)
        #expect(
            p.message.hasPrefix(
                "singleton 'Cart' would keep graph object 'RequestContext': Cart -> RequestContext (key 'context' of 'Cart')"))
        #expect(p.message.contains("make it {Provider: RequestContext}"))
        #expect(p.location == SourceLocation(file: "app.yaml", line: 2, column: 1))
        #expect(r.entries.isEmpty)
    }

    @Test func theMessageNamesThePathThroughATransientIntermediate() throws {
        let problems = lifetimeProblems(
            """
            Cart: {ClassName: C, Lifestyle: singleton, Dependencies: {pricing: Pricing}}
            Pricing: {ClassName: P, Dependencies: {ctx: RequestContext}}
            RequestContext: {ClassName: Ctx, Lifestyle: graph}
            """)
        let p = try #require(problems.first)
        #expect(problems.count == 1)
        #expect(
            p.message.hasPrefix(
                "singleton 'Cart' would keep graph object 'RequestContext': Cart -> Pricing -> RequestContext (key 'ctx' of 'Pricing'); "
            ))
        #expect(p.message.contains("'Cart' not singleton, or 'RequestContext' not graph"))
        #expect(p.path == ["Cart", "Pricing", "RequestContext"])
        #expect(p.location?.line == 1)
    }

    @Test func everySingletonOfAChainIsReportedAtOnceAmongOtherProblems() throws {
        let problems = try #require(
            expectError {
                try Registry().load(
                    text: """
                        Top: {ClassName: C, Lifestyle: singleton, Dependencies: {mid: Mid, lost: Missing}}
                        Mid: {ClassName: C, Lifestyle: singleton, Dependencies: {g: G}}
                        G: {ClassName: C, Lifestyle: graph}
                        """)
            })
        #expect(problems.diagnostics.contains { $0.code == .missingReference })
        let lifetime = problems.diagnostics.filter { $0.code == .lifetime }.map(\.message)
        #expect(lifetime.count == 2)
        #expect(lifetime.contains { $0.hasPrefix("singleton 'Top' would keep graph object 'G': Top -> Mid -> G") })
        #expect(lifetime.contains { $0.hasPrefix("singleton 'Mid' would keep graph object 'G': Mid -> G") })
        #expect(problems.code == .missingReference)  // the lowest code of the problems
    }

    @Test func providersListsAndMapsAreWalkedLikeTheResolverDoes() throws {
        // A provider is the legal way: no problem.
        let r = Registry()
        try registerWidgets(r, ["C", "Ctx"])
        try r.load(
            text: """
                RequestContext: {ClassName: Ctx, Lifestyle: graph}
                Cart: {ClassName: C, Lifestyle: singleton, Dependencies: {ctx: {Provider: RequestContext}}}
                Handler: {ClassName: C, Dependencies: {ctx: RequestContext, cart: Cart}}
                """)
        _ = try r.create("Handler")
        // A reference inside a list or map counts.
        let nested = lifetimeProblems(
            """
            G: {ClassName: C, Lifestyle: graph}
            S: {ClassName: C, Lifestyle: singleton, Dependencies: {all: [1, {inner: G}]}}
            """)
        #expect(nested.first?.message.hasPrefix("singleton 'S' would keep graph object 'G': S -> G (key 'all' of 'S')") == true)
    }

    @Test func manyViolationsAreCappedAndCountedWithLongPathsShortened() throws {
        // 150 singletons in a chain ending at a graph entry: each one breaks the rule.
        var text = "G: {ClassName: C, Lifestyle: graph}\n"
        for i in 0..<150 {
            text += "S\(i): {ClassName: C, Lifestyle: singleton, Dependencies: {next: \(i == 149 ? "G" : "S\(i + 1)")}}\n"
        }
        let problems = lifetimeProblems(text)
        #expect(problems.count == 101)
        #expect(problems.last?.message == "50 more singletons would keep graph objects, not listed (the first 100 are)")
        let first = try #require(problems.first?.message)
        #expect(
            first.hasPrefix(
                "singleton 'S0' would keep graph object 'G': S0 -> S1 -> S2 -> S3 -> S4 -> S5 -> S6 -> S7 -> ... (135 more entries) ... -> S143 -> S144 -> S145 -> S146 -> S147 -> S148 -> S149 -> G (key 'next' of 'S149')"
            ))
    }

    @Test func cycleProblemsCarryTheirClosedPathForTools() throws {
        let error = try #require(
            expectError {
                try Registry().load(
                    text: """
                        A: {ClassName: C, Dependencies: {b: B}}
                        B: {ClassName: C, Dependencies: {list: [A]}}
                        """)
            })
        #expect(error.diagnostics.map(\.path) == [["A", "B", "A"]])
    }

    @Test func taggedListsAndOptionalReferencesAreObjectEdges() throws {
        // Through a transient intermediate's tagged list: the fix is to leave the tag.
        let tagged = lifetimeProblems(
            """
            Cart: {ClassName: C, Lifestyle: singleton, Dependencies: {pricing: Pricing}}
            Pricing: {ClassName: P, Dependencies: {rules: {Tagged: rule}}}
            Plain: {ClassName: R, Tag: rule}
            Ctx: {ClassName: R, Tag: [rule, 5], Lifestyle: graph}
            """)
        #expect(tagged.count == 1)
        let t = try #require(tagged.first)
        #expect(
            t.message.hasPrefix(
                "singleton 'Cart' would keep graph object 'Ctx': Cart -> Pricing -> Ctx (key 'rules' of 'Pricing'); "))
        #expect(t.message.contains("take 'Ctx' out of tag 'rule' (it is a member of {Tagged: rule} there)"))
        #expect(t.path == ["Cart", "Pricing", "Ctx"])
        // An optional reference to an absent entry is nothing; once the entry exists as a graph
        // entry, it is an object edge and the change is refused with nothing changed.
        let r = Registry()
        try registerWidgets(r, ["C"])
        try r.load(text: "Session: {ClassName: C, Lifestyle: singleton, Dependencies: {req: {Optional: Request}}}")
        let added = expectError { try r.add([EntryDefinition(name: "Request", className: "C", lifestyle: .graph)]) }
        #expect(added?.code == .lifetime)
        #expect(added?.diagnostics.first?.message.contains("make it {Provider: Request}") == true)
        #expect(r.entry(named: "Request") == nil)
        try r.add([EntryDefinition(name: "Request", className: "C")])
        _ = try r.create("Session")
        // A new graph member of a tag a singleton lists is refused too, from a file as from code.
        let byTag = Registry()
        try byTag.load(
            text: "Hub: {ClassName: C, Lifestyle: singleton, Dependencies: {all: [{Tagged: t}]}}\nA: {ClassName: C, Tag: t}")
        let member = expectError { try byTag.load(text: "B: {ClassName: C, Tag: t, Lifestyle: graph}", file: "more.yaml") }
        #expect(member?.diagnostics.map(\.code) == [.lifetime])
        #expect(member?.diagnostics.first?.message.hasPrefix("singleton 'Hub' would keep graph object 'B': Hub -> B") == true)
        #expect(byTag.entry(named: "B") == nil)
    }

    @Test func childRegistriesSeeTaggedMembersOfTheirParentAndTheirOwn() throws {
        let parent = Registry()
        try registerWidgets(parent, ["C"])
        try parent.load(text: "A: {ClassName: C, Tag: t}")
        let child = Registry(parent: parent)
        try child.load(text: "Hub: {ClassName: C, Lifestyle: singleton, Dependencies: {all: {Tagged: t}}}")
        // The child's own graph member of the tag.
        let own = expectError { try child.load(text: "Mine: {ClassName: C, Tag: t, Lifestyle: graph}") }
        #expect(own?.code == .lifetime)
        // A parent's new graph member reaches the child's singleton: the parent change is refused.
        let fromParent = expectError { try parent.load(text: "G: {ClassName: C, Tag: t, Lifestyle: graph}") }
        #expect(fromParent?.code == .lifetime)
        #expect(fromParent?.diagnostics.first?.message.contains("would break a child registry: singleton 'Hub'") == true)
        #expect(parent.entry(named: "G") == nil)
        _ = try child.create("Hub")
    }

    @Test func aReloadThatWouldBreakTheRuleIsRefusedWithNothingChanged() throws {
        let dir = ConfigDir()
        let file = dir.write(
            "app.yaml", "Cart: {ClassName: C, Lifestyle: singleton, Dependencies: {ctx: Ctx}}\nCtx: {ClassName: C}\n")
        let r = Registry()
        try registerWidgets(r, ["C"])
        try r.load(path: file)
        dir.write(
            "app.yaml",
            "Cart: {ClassName: C, Lifestyle: singleton, Dependencies: {ctx: Ctx}}\nCtx: {ClassName: C, Lifestyle: graph}\n")
        let error = expectError { _ = try r.reload() }
        #expect(error?.code == .lifetime)
        #expect(error?.diagnostics.first?.location == SourceLocation(file: file, line: 1, column: 1))
        #expect(r.entry(named: "Ctx")?.lifestyle == .transient)
        _ = try r.create("Cart")
    }

    @Test func eagerSingletonsAreCheckedTheSameWay() throws {
        let problems = lifetimeProblems(
            """
            G: {ClassName: C, Lifestyle: graph}
            S: {ClassName: C, Lifestyle: singleton, Eager: true, Dependencies: {g: G}}
            """)
        #expect(problems.count == 1)
    }

    @Test func registryAddThatWouldCreateAViolationIsRefusedWithNothingChanged() throws {
        let r = Registry()
        try registerWidgets(r, ["C"])
        try r.load(
            text: """
                Cart: {ClassName: C, Lifestyle: singleton, Dependencies: {pricing: Pricing}}
                Pricing: {ClassName: C, Dependencies: {ctx: Ctx}}
                Ctx: {ClassName: C}
                """)
        let before = r.entries
        // Turning the leaf into a graph entry would make the unchanged singleton keep it.
        let error = expectError {
            try r.add([EntryDefinition(name: "Ctx", className: "C", lifestyle: .graph)], mode: .override)
        }
        #expect(error?.code == .lifetime)
        #expect(
            error?.diagnostics.first?.message.hasPrefix("singleton 'Cart' would keep graph object 'Ctx': Cart -> Pricing -> Ctx")
                == true)
        #expect(r.entries == before)
        #expect(r.entry(named: "Ctx")?.lifestyle == .transient)
        // Adding a new singleton that reaches an existing graph entry is refused too.
        try r.add([EntryDefinition(name: "Req", className: "C", lifestyle: .graph)])
        let added = expectError {
            try r.add([
                EntryDefinition(
                    name: "Session", className: "C",
                    dependencies: [Dependency(key: "req", value: .reference("Req", at: nil))], lifestyle: .singleton)
            ])
        }
        #expect(added?.code == .lifetime)
        #expect(added?.diagnostics.first?.location == nil)
        #expect(r.entry(named: "Session") == nil)
        _ = try r.create("Cart")
    }

    @Test func childRegistriesCheckTheirSingletonsAgainstInheritedAndOverriddenEntries() throws {
        let parent = Registry()
        try registerWidgets(parent, ["C"])
        try parent.load(
            text: """
                Ctx: {ClassName: C, Lifestyle: graph}
                Leaf: {ClassName: C}
                Shared: {ClassName: C, Lifestyle: singleton, Dependencies: {leaf: Leaf}}
                """)
        let child = Registry(parent: parent)
        // The child's own singleton reaching the graph entry it inherits.
        let inherited = expectError {
            try child.load(text: "Mine: {ClassName: C, Lifestyle: singleton, Dependencies: {ctx: Ctx}}", file: "child.yaml")
        }
        #expect(inherited?.code == .lifetime)
        #expect(
            inherited?.diagnostics.first?.message.hasPrefix("singleton 'Mine' would keep graph object 'Ctx': Mine -> Ctx") == true
        )
        #expect(inherited?.diagnostics.first?.location?.file == "child.yaml")
        // The child's singleton reaching a parent transient the child overrides as graph.
        let overridden = expectError {
            try child.load(
                text: """
                    Leaf: {ClassName: C, Lifestyle: graph}
                    Mine: {ClassName: C, Lifestyle: singleton, Dependencies: {leaf: Leaf}}
                    """, mode: .override)
        }
        #expect(overridden?.diagnostics.map(\.code) == [.lifetime])
        #expect(overridden?.diagnostics.first?.message.hasPrefix("singleton 'Mine' would keep graph object 'Leaf'") == true)
        // The parent's singleton is built by the parent with the parent's `Leaf`: overriding
        // `Leaf` in the child alone is fine.
        try child.load(text: "Leaf: {ClassName: C, Lifestyle: graph}", mode: .override)
        _ = try child.create("Shared")
        // A parent change that would make a child's singleton keep a graph object is refused.
        try parent.load(text: "X: {ClassName: C}")
        try child.load(text: "Own: {ClassName: C, Lifestyle: singleton, Dependencies: {x: X}}")
        let parentChange = expectError {
            try parent.add([EntryDefinition(name: "X", className: "C", lifestyle: .graph)], mode: .override)
        }
        #expect(parentChange?.code == .lifetime)
        #expect(parentChange?.diagnostics.first?.message.contains("would break a child registry: singleton 'Own'") == true)
        #expect(parent.entry(named: "X")?.lifestyle == .transient)
    }
}
