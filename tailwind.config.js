/** Tailwind v4 reads this through `@config` in static/css/input.css. */
module.exports = {
  content: ["./views/**/*.templ", "./views/**/*.go", "./handlers/**/*.go", "./static/js/**/*.js"],
  theme: { extend: {} },
  plugins: [require("@tailwindcss/typography")],
};
