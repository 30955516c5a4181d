# A stand-in for the part of Homebrew that webapi-credential.rb uses, so that the formula's `test do`
# runs here against the real binary (test/release/formula.test.ts): the DSL it calls, recorded;
# `bin`, `testpath`, `version`, `shell_output`, and Minitest's `assert_match` and `assert_equal` with
# Homebrew's meaning. A DSL call the stand-in lacks fails the run (NoMethodError): the formula uses
# something the tests do not check.
#
#   ruby homebrew-stand-in.rb <formula.rb> <bin directory>
#
# prints what the formula declares as JSON, after its `test do` passed (exit 0), or the failure (exit 1).
require "json"
require "open3"
require "pathname"
require "tmpdir"

class AssertionFailed < StandardError; end

# Homebrew's Version, as far as `version.to_s` goes.
class Version
  def initialize(text)
    @text = text
  end

  def to_s
    @text
  end
end

class Formula
  class << self
    attr_reader :test_block

    def declared
      @declared ||= { "on" => {} }
    end

    def desc(text)
      declared["desc"] = text
    end

    def homepage(text)
      declared["homepage"] = text
    end

    def version(text = nil)
      declared["version"] = text unless text.nil?
      declared["version"]
    end

    def license(text)
      declared["license"] = text
    end

    # Homebrew runs each block on its OS and CPU only; here every block is recorded, by where it holds.
    def on_macos(&block)
      within("macos", &block)
    end

    def on_arm(&block)
      within("arm", &block)
    end

    def on_intel(&block)
      within("intel", &block)
    end

    def url(text)
      place["url"] = text
    end

    def sha256(text)
      place["sha256"] = text
    end

    def depends_on(spec)
      (place["depends_on"] ||= []) << spec.transform_keys(&:to_s).transform_values(&:to_s)
    end

    def test(&block)
      @test_block = block
    end

    private

    def within(name)
      @where = [*@where, name]
      yield
    ensure
      @where = @where[0...-1]
    end

    def place
      (@where || []).reduce(declared) { |at, name| at["on"][name] ||= { "on" => {} } }
    end
  end

  attr_reader :bin, :testpath

  def initialize(bin, testpath)
    @bin = Pathname(bin)
    @testpath = Pathname(testpath)
  end

  def version
    Version.new(self.class.version)
  end

  # Homebrew's: the command's stdout, through a shell; its exit status must be `result`.
  def shell_output(command, result = 0)
    output, status = Open3.capture2(command)
    raise AssertionFailed, "#{command}: exit #{status.exitstatus}, expected #{result}" unless status.exitstatus == result

    output
  end

  # Minitest's: a String is matched as itself, a Regexp as a pattern.
  def assert_match(matcher, text)
    pattern = matcher.is_a?(String) ? Regexp.new(Regexp.escape(matcher)) : matcher
    raise AssertionFailed, "expected #{pattern.inspect} to match #{text.inspect}" unless pattern.match?(text)
  end

  def assert_equal(expected, actual)
    raise AssertionFailed, "expected #{expected.inspect}, got #{actual.inspect}" unless expected == actual
  end
end

formula_file, bin = ARGV
load formula_file
klass = ObjectSpace.each_object(Class).find { |c| c < Formula }
raise "#{formula_file} defines no Formula" if klass.nil?
raise "#{formula_file} has no test do" if klass.test_block.nil?

Dir.mktmpdir("formula-test-") do |testpath|
  # Homebrew runs the test in its testpath, with HOME there.
  ENV["HOME"] = testpath
  Dir.chdir(testpath) do
    klass.new(bin, File.realpath(testpath)).instance_exec(&klass.test_block)
  end
rescue AssertionFailed => e
  warn "test do failed: #{e.message}"
  exit 1
end
puts JSON.generate(klass.declared)
